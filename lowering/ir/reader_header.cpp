#include "lowering/ir/reader_header.hpp"

#include <map>

namespace tk::ir {

AttrValue HeaderReader::attr_value(int depth) {
  if (at(Token::Kind::grid))
    return {grid()};
  if (accept_word("true"))
    return {true};
  if (accept_word("false"))
    return {false};
  if (at(Token::Kind::string)) {
    std::string_view s = next().text;
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '\\' && i + 1 < s.size()) {
        ++i;
        out += s[i] == 'n' ? '\n' : s[i];
      } else {
        out += s[i];
      }
    }
    return {out};
  }
  if (at_punct("[")) {
    Nest nest(*this);
    check_depth(depth, next());
    std::vector<AttrValue> list;
    if (!accept("]")) {
      do
        list.push_back(attr_value(depth + 1));
      while (accept(","));
      expect("]");
    }
    return {std::move(list)};
  }
  if (at(Token::Kind::integer) || at_punct("-"))
    return {integer("an attribute value")};
  fail_expected("an attribute value");
}

Attrs HeaderReader::attrs() {
  Attrs a;
  expect("{");
  if (accept("}"))
    return a;
  do {
    const Token& key = peek();
    std::string k = ident("an attribute name");
    expect("=");
    if (!a.emplace(k, attr_value()).second)
      fail(key.range, "duplicate attribute '" + k + "'");
  } while (accept(","));
  expect("}");
  return a;
}

// The typed fields a program prints among its attributes (printer.cpp, program_attrs), taken
// back out of them with their types checked.
void HeaderReader::typed_attrs(Program& p, const SourceRange& where) {
  auto take = [&](const char* key) -> std::optional<AttrValue> {
    auto it = p.attrs.find(key);
    if (it == p.attrs.end())
      return std::nullopt;
    AttrValue v = std::move(it->second);
    p.attrs.erase(it);
    return v;
  };
  if (std::optional<AttrValue> v = take("signature")) {
    const auto* names = std::get_if<std::vector<AttrValue>>(&v->value);
    for (const AttrValue& n : names ? *names : std::vector<AttrValue>{}) {
      const auto* s = std::get_if<std::string>(&n.value);
      if (!s)
        fail(where, "attribute 'signature' must be a list of names");
      p.signature.push_back(*s);
    }
    if (!names || p.signature.empty())
      fail(where, "attribute 'signature' must be a list of names");
  }
  if (std::optional<AttrValue> v = take("combine")) {
    const auto* s = std::get_if<std::string>(&v->value);
    if (!s || s->empty())
      fail(where, "attribute 'combine' must be a program name");
    p.combine = *s;
  }
  if (std::optional<AttrValue> v = take("dst_fp32")) {
    const auto* b = std::get_if<bool>(&v->value);
    if (!b)
      fail(where, "attribute 'dst_fp32' must be true or false");
    p.dst_fp32 = *b;
  }
  if (std::optional<AttrValue> v = take("cpu_packed_a")) {
    const auto* s = std::get_if<std::string>(&v->value);
    if (!s || s->empty())
      fail(where, "attribute 'cpu_packed_a' must be a tensor name");
    p.cpu_packed_a = *s;
  }
  // grouped_dims = [[outer, ratio, inner], ...], rows = [[name, dim, capacity, tiles], ...]:
  // each entry a list of exactly these types.
  auto entries = [&](const AttrValue& v, const char* message,
                     const auto& valid) -> std::vector<std::vector<AttrValue>> {
    std::vector<std::vector<AttrValue>> out;
    const auto* list = std::get_if<std::vector<AttrValue>>(&v.value);
    for (const AttrValue& e : list ? *list : std::vector<AttrValue>{}) {
      const auto* fields = std::get_if<std::vector<AttrValue>>(&e.value);
      if (!fields || !valid(*fields))
        fail(where, message);
      out.push_back(*fields);
    }
    if (out.empty())
      fail(where, message);
    return out;
  };
  auto is = [](const std::vector<AttrValue>& f, std::size_t i, auto type) {
    return std::holds_alternative<decltype(type)>(f[i].value);
  };
  if (std::optional<AttrValue> v = take("grouped_dims"))
    for (const auto& f :
         entries(*v, "attribute 'grouped_dims' must be a list of [outer, ratio, inner]",
                 [&](const std::vector<AttrValue>& f) {
                   return f.size() == 3 && is(f, 0, std::string{}) && is(f, 1, std::int64_t{}) &&
                          is(f, 2, std::string{});
                 }))
      p.grouped_dims.push_back({std::get<std::string>(f[0].value),
                                std::get<std::int64_t>(f[1].value),
                                std::get<std::string>(f[2].value)});
  if (std::optional<AttrValue> v = take("rows"))
    for (const auto& f :
         entries(*v, "attribute 'rows' must be a list of [name, dimension, capacity, tiles]",
                 [&](const std::vector<AttrValue>& f) {
                   return f.size() == 4 && is(f, 0, std::string{}) && is(f, 1, std::string{}) &&
                          is(f, 2, std::int64_t{}) && is(f, 3, bool{});
                 }))
      p.rows.push_back({std::get<std::string>(f[0].value), std::get<std::string>(f[1].value),
                        std::get<std::int64_t>(f[2].value), std::get<bool>(f[3].value)});
}

Tensor HeaderReader::tensor() {
  Tensor t;
  expect_word("tensor");
  t.name = ident("a tensor name");
  expect(":");
  t.dtype = word_of(dtype_from_string, "dtype");
  expect("[");
  do {
    Dim d;
    if (at(Token::Kind::ident))
      d.name = ident("a dimension");
    else
      d.size = integer("a dimension");
    t.dims.push_back(d);
  } while (accept(","));
  expect("]");
  t.role = word_of(tensor_role_from_string, "tensor role");
  if (accept_word("layout")) {
    Layout l;
    l.memory = word_of(memory_kind_from_string, "memory kind");
    l.kind = word_of(layout_kind_from_string, "layout kind");
    expect_word("tile");
    Grid g = grid();
    l.tile_h = g.x;
    l.tile_w = g.y;
    expect_word("page");
    l.page_size = integer("a page size");
    t.layout = l;
  }
  return t;
}

CircularBuffer HeaderReader::circular_buffer() {
  CircularBuffer c;
  expect_word("cb");
  c.name = ident("a circular buffer name");
  expect_word("index");
  c.index = integer("a CB index");
  expect_word("format");
  c.format = word_of(data_format_from_string, "data format");
  expect_word("page");
  c.page_size = integer("a page size");
  expect_word("depth");
  c.depth = integer("a depth");
  expect_word("role");
  c.role = word_of(cb_role_from_string, "CB role");
  if (accept_word("read_by")) {
    expect_word("writer");
    c.read_by_writer = true;
  }
  if (accept_word("written_by")) {
    expect_word("reader");
    expect_word("for");
    c.reader_writes_for = ident("a circular buffer name");
  }
  if (accept_word("tensor"))
    c.tensor = ident("a tensor name");
  return c;
}

bool HeaderReader::boolean() {
  if (accept_word("true"))
    return true;
  if (accept_word("false"))
    return false;
  fail_expected("true or false");
}

// `[a, b]`: names of host values or functions.
std::vector<std::string> HeaderReader::names(std::string_view what) {
  std::vector<std::string> out;
  expect("[");
  if (accept("]"))
    return out;
  do
    out.push_back(ident(what));
  while (accept(","));
  expect("]");
  return out;
}

// A tensor named by a host-plan entry: declared before, like the tensors a body names.
std::string HeaderReader::known_tensor(std::string_view what) {
  const Token& t = peek();
  std::string name = ident("a tensor name");
  if (!prog_->find_tensor(name))
    fail(t.range, std::string(what) + " of unknown tensor '" + name + "'");
  return name;
}

Accessor HeaderReader::accessor() {
  Accessor a;
  expect_word("accessor");
  a.tensor = known_tensor("accessor");
  expect_word("args");
  expect("[");
  if (!accept("]")) {
    do
      a.args.push_back(integer("a compile-time arg"));
    while (accept(","));
    expect("]");
  }
  return a;
}

std::string HeaderReader::string_literal(std::string_view what) {
  if (!at(Token::Kind::string))
    fail_expected(std::string(what));
  return std::get<std::string>(attr_value().value);
}

Options HeaderReader::options() {
  Options o;
  if (accept_word("arch"))
    o.arch = string_literal("an architecture name in quotes");
  if (accept_word("grid"))
    o.grid = grid();
  expect_word("cb_depth");
  o.cb_depth = integer("a CB depth");
  expect_word("fp32_acc");
  o.fp32_acc = boolean();
  expect_word("math_fidelity");
  o.math_fidelity = string_literal("a math fidelity in quotes");
  if (accept_word("matmul_block")) {
    const Grid g = grid();
    o.matmul_rows = g.x;
    o.matmul_cols = g.y;
  }
  if (accept_word("q_chunk"))
    o.q_chunk = integer("a Q chunk in tile rows");
  o.exp_approx_mode = accept_word("exp_approx_mode");
  return o;
}

Blocking HeaderReader::blocking() {
  Blocking b;
  expect_word("sub_block");
  const Grid sub = grid();
  b.sub_rows = sub.x;
  b.sub_cols = sub.y;
  expect_word("caps");
  for (std::int64_t* x : {&b.cap_a, &b.cap_b, &b.cap_partials})
    *x = integer("a CB capacity in tiles");
  expect_word("costs");
  Blocking::Costs& c = b.costs;
  for (std::int64_t* x : {&c.product, &c.round_trip, &c.multicast, &c.dram, &c.page_a, &c.page_b,
                          &c.read, &c.step_latency, &c.page_c, &c.write})
    *x = integer("a cost of the block rule");
  expect_word("why");
  b.why = string_literal("the reasoning in quotes");
  return b;
}

Materialise HeaderReader::materialise() {
  Materialise m;
  m.choice = word_of(materialise_choice_from_string, "materialise choice");
  expect_word("value");
  m.value = string_literal("the value's name in quotes");
  if (accept_word("tensor"))
    m.tensor = string_literal("the scratch tensor's name in quotes");
  expect_word("by");
  m.basis = word_of(materialise_basis_from_string, "materialise basis");
  expect_word("why");
  m.why = string_literal("the reasoning in quotes");
  return m;
}

KernelConfig HeaderReader::kernel_config() {
  KernelConfig c;
  expect_word("runtime_args");
  c.runtime_args = names("a runtime arg name");
  expect_word("compile_args");
  expect("[");
  if (!accept("]")) {
    do {
      CompileArg a;
      a.tensor = known_tensor("compile-time args");
      expect_word("at");
      a.offset = integer("a compile-time arg offset");
      c.compile_args.push_back(a);
    } while (accept(","));
    expect("]");
  }
  if (accept_word("compile_values"))
    c.compile_values = names("a compile-time value's name");
  if (accept_word("processor")) {
    DataMovementConfig d;
    d.processor = word_of(processor_from_string, "processor");
    expect_word("noc");
    d.noc = word_of(noc_from_string, "NoC");
    c.data_movement = d;
  } else if (accept_word("math_fidelity")) {
    ComputeConfig k;
    k.math_fidelity = word_of(math_fidelity_from_string, "math fidelity");
    expect_word("fp32_dest_acc_en");
    k.fp32_dest_acc_en = boolean();
    expect_word("math_approx_mode");
    k.math_approx_mode = boolean();
    if (accept_word("unpack_to_dest_fp32"))
      k.unpack_to_dest_fp32 = names("a CB name");
    k.bfp8_pack_precise = accept_word("bfp8_pack_precise");
    c.compute = k;
  }
  return c;
}

HostPlan HeaderReader::host_plan() {
  HostPlan h;
  expect_word("host_plan");
  expect("{");
  expect_word("split");
  h.split = word_of(work_split_from_string, "work split");
  expect_word("items");
  h.work_items = ident("the name of the work-item count");
  expect_word("grid");
  h.grid = grid();
  expect_word("row_wise");
  h.row_wise = boolean();
  if (accept_word("per_core")) {
    PerCore pc;
    pc.start = ident("the name of a core's first work item");
    pc.count = ident("the name of a core's work-item count");
    h.per_core = pc;
  }
  if (accept_word("core_grid")) {
    CoreGrid g;
    g.x = ident("the name of a core's column");
    g.y = ident("the name of a core's row");
    expect_word("cols");
    g.cols = ident("the name of the grid's columns");
    expect_word("rows");
    g.rows = ident("the name of the grid's rows");
    expect_word("across");
    g.across = ident("the name of the work items across");
    expect_word("down");
    g.down = ident("the name of the work items down");
    h.core_grid = g;
  }
  if (accept_word("semaphores"))
    h.semaphores = names("a semaphore name");
  while (accept_word("buffer")) {
    HostBuffer b;
    b.tensor = known_tensor("buffer");
    expect_word("address");
    b.address = ident("the name of a buffer address");
    if (accept_word("size"))
      b.size = ident("the name of a buffer size");
    if (accept_word("page"))
      b.page_size = integer("a page size");
    h.buffers.push_back(b);
  }
  if (accept_word("kernels"))
    h.kernels = names("a function name");
  if (!accept("}"))
    fail_expected(h.kernels.empty() ? "'buffer', 'kernels' or '}'" : "'}'");
  return h;
}

} // namespace tk::ir
