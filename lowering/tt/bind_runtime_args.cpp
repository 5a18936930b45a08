#include "lowering/tt/bind_runtime_args.hpp"

#include "lowering/ir/printer.hpp"
#include "lowering/ir/util.hpp"

#include <algorithm>

namespace tk::lower {

namespace {

using namespace tk::ir;

// Host expressions compute sizes in u32.
struct ToHost : Mutator {
  Expr mutate_node(const Var& v, const Expr& self) override {
    return v.type.is_int() ? var(v.name, Type::u32()) : self;
  }
  Expr mutate_node(const IntImm& i, const Expr& self) override {
    return i.type.kind == Type::Kind::i32 ? int_imm(i.value, Type::u32()) : self;
  }
};

// float_bits(e) of a host-known scalar expression becomes a runtime value `<name>_bits`.
class ScalarBits : public Mutator {
public:
  ScalarBits(ir::NameSet& names, std::vector<std::pair<std::string, Expr>>& bits)
      : names_(names), bits_(bits) {}

protected:
  Expr mutate_node(const Call& c, const Expr& self) override {
    if (c.fn != Intrinsic::float_bits)
      return Mutator::mutate_node(c, self);
    std::string key = print(c.args[0]);
    for (const auto& [n, e] : bits_)
      if (print(e) == key)
        return var(n, Type::u32());
    const Var* v = as<Var>(c.args[0]);
    std::string n = names_.fresh(v ? v->name + "_bits" : std::string("scalar_bits"));
    bits_.push_back({n, c.args[0]});
    return var(n, Type::u32());
  }

private:
  ir::NameSet& names_;
  std::vector<std::pair<std::string, Expr>>& bits_;
};

struct RefCollector : Visitor {
  std::set<std::string> names;
  void visit_node(const Ref& r) override { names.insert(r.name); }
};

class Binder {
public:
  Binder(Program& p, Function& host) : prog_(p), host_(host), names_(p) {
    if (!p.host_plan || (!p.host_plan->per_core && !p.host_plan->core_grid))
      throw InternalError("internal error: bind-runtime-args: program '" + p.name +
                          "' has no host plan with per-core values (to-core-loop runs first)");
    // The values the host sets per core: a kernel let reading one stays in the kernel.
    if (const auto& pc = p.host_plan->per_core)
      per_core_ = {pc->start, pc->count};
    if (const auto& g = p.host_plan->core_grid)
      per_core_ = {g->x, g->y};
    for (const Function& f : p.functions)
      if (f.kind == FuncKind::host_core)
        for (const Stmt& s : as<Block>(f.body)->stmts)
          if (const Decl* d = as<Decl>(s))
            per_core_.insert(d->name);
    for (const Stmt& s : as<Block>(host.body)->stmts)
      if (const Decl* d = as<Decl>(s))
        host_lets_.insert(d->name);
    for (const Tensor& t : p.tensors)
      addr_[t.name] = names_.fresh(t.name + "_addr");
  }

  // The host values every kernel's scalars need, shared so two kernels use one name.
  std::vector<std::pair<std::string, Expr>> bits;

  void bind(Function& f) {
    std::vector<Stmt> body = as<Block>(f.body)->stmts;
    std::set<std::string> host_known;
    for (const Param& q : f.params)
      if (q.type.kind != Type::Kind::tensor)
        host_known.insert(q.name);
    // Leading lets over sizes only: computed once on the host, passed in.
    std::vector<std::pair<std::string, Type>> moved;
    std::size_t lead = 0;
    for (; lead < body.size(); ++lead) {
      const Decl* d = as<Decl>(body[lead]);
      if (!d)
        break;
      std::set<std::string> r = ir::vars_read(d->value);
      bool host = std::all_of(r.begin(), r.end(), [&](const std::string& n) {
        return host_known.count(n) && !per_core_.count(n);
      });
      if (!host)
        break;
      host_known.insert(d->name);
      moved.push_back({d->name, d->type});
      if (host_lets_.insert(d->name).second)
        host_body_.push_back(decl(d->name, Type::u32(), ToHost().mutate(d->value)));
    }
    Stmt rest =
        block(std::vector<Stmt>(body.begin() + static_cast<std::ptrdiff_t>(lead), body.end()));
    ScalarBits sb(names_, bits);
    rest = sb.mutate(rest);
    std::set<std::string> reads = ir::vars_read(rest);
    RefCollector refs;
    refs.visit(rest);

    std::vector<Stmt> head;
    KernelConfig config;
    std::vector<std::string>& rt_names = config.runtime_args;
    auto arg = [&](const std::string& n, Type t) {
      head.push_back(decl(
          n, t,
          call(Intrinsic::get_arg_val, {int_imm(static_cast<std::int64_t>(rt_names.size()))})));
      rt_names.push_back(n);
    };
    std::vector<const Tensor*> streamed;
    for (const Tensor& t : prog_.tensors)
      if (refs.names.count(t.name)) {
        streamed.push_back(&t);
        arg(addr_.at(t.name), Type::u32());
      }
    for (const auto& [n, t] : moved)
      if (reads.count(n))
        arg(n, t);
    for (const Param& q : f.params) {
      if (q.type.kind == Type::Kind::tensor || !reads.count(q.name) || is_start_or_count(q.name))
        continue;
      if (q.type.kind == Type::Kind::f32)
        throw InternalError("internal error: bind-runtime-args: scalar '" + q.name +
                            "' used outside float_bits in " + f.name);
      arg(q.name, q.type);
    }
    for (const auto& [n, e] : bits)
      if (reads.count(n))
        arg(n, Type::u32());
    for (const Param& q : f.params)
      if (is_start_or_count(q.name) && reads.count(q.name))
        arg(q.name, q.type);
    // The TensorAccessorArgs chain, as the SDK writes it: the first accessor at compile-time word
    // 0, each next one where the previous one's words end (`tensor_accessor.chained` names it).
    std::int64_t cta = 0;
    const Tensor* prev = nullptr;
    for (const Tensor* t : streamed) {
      const Accessor* a = prog_.find_accessor(t->name);
      if (!a)
        throw InternalError("internal error: bind-runtime-args: tensor '" + t->name +
                            "' has no accessor (attach-accessors runs first)");
      Expr addr = var(addr_.at(t->name), Type::u32());
      Expr page = int_imm(t->layout->page_size, Type::u32());
      head.push_back(evaluate(prev ? call(Intrinsic::tensor_accessor_chained,
                                          {tensor_ref(t->name), tensor_ref(prev->name), addr, page})
                                   : call(Intrinsic::tensor_accessor,
                                          {tensor_ref(t->name), int_imm(cta), addr, page})));
      config.compile_args.push_back({t->name, cta});
      cta += a->arg_count();
      prev = t;
    }
    head.push_back(rest);
    f.body = block(std::move(head));
    f.params.clear();
    f.config = std::move(config);
  }

  void finish() {
    std::vector<Stmt> body = as<Block>(host_.body)->stmts;
    body.insert(body.end(), host_body_.begin(), host_body_.end());
    for (const auto& [n, e] : bits) // sizes in scalar expressions (1.0 / N) are u32 on the host
      body.push_back(decl(n, Type::u32(), call(Intrinsic::float_bits, {ToHost().mutate(e)})));
    host_.body = block(std::move(body));
    // A DRAM buffer per tensor, named by the address the kernels read; finalize-signature sizes it.
    prog_.host_plan->buffers.clear();
    for (const Tensor& t : prog_.tensors)
      prog_.host_plan->buffers.push_back({t.name, addr_.at(t.name), "", 0});
  }

private:
  Program& prog_;
  Function& host_;
  ir::NameSet names_;
  std::set<std::string> host_lets_;
  std::vector<Stmt> host_body_;
  std::map<std::string, std::string> addr_;

  std::set<std::string> per_core_;

  // split_work_to_cores's two per-core values go last in every kernel's runtime args.
  bool is_start_or_count(const std::string& n) const {
    const auto& pc = prog_.host_plan->per_core;
    return pc && (n == pc->start || n == pc->count);
  }
};

} // namespace

ir::Module bind_runtime_args(const ir::Module& m, Diagnostics&) {
  ir::Module out = m;
  for (Program& p : out.programs) {
    Function* host = ir::find_function(p, FuncKind::host);
    if (!host || !p.host_plan)
      throw InternalError("internal error: bind-runtime-args: program '" + p.name +
                          "' has no host function and plan (partition-work runs first)");
    Binder b(p, *host);
    for (Function& f : p.functions)
      if (f.kind == FuncKind::reader || f.kind == FuncKind::compute || f.kind == FuncKind::writer)
        b.bind(f);
    b.finish();
  }
  return out;
}

} // namespace tk::lower
