#include "lowering/tt/fold_scale_args.hpp"

#include "lowering/ir/util.hpp"
#include "lowering/ir/visitor.hpp"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tk::lower {

namespace {

using namespace tk::ir;

const Call* as_call_of(const Expr& e, Intrinsic fn) {
  const Call* c = as<Call>(e);
  return c && c->fn == fn ? c : nullptr;
}

} // namespace

Module fold_scale_args(const Module& m, Diagnostics&) {
  Module out = m;
  for (Program& p : out.programs) {
    Function* host = find_function(p, FuncKind::host);
    for (Function& f : p.functions) {
      if (f.kind != FuncKind::compute || !f.config || !host ||
          (calls_of(f.body, Intrinsic::exp_tile_approx_scaled).empty() &&
           calls_of(f.body, Intrinsic::exp_tile_approx_noclamp_scaled).empty()))
        continue;
      // The compute kernel's runtime lets (`let b: u32 = get_arg_val(n)`) and the host's lets.
      std::map<std::string, std::int64_t> arg_of;
      for (const Stmt& s : as<Block>(f.body)->stmts)
        if (const Decl* d = as<Decl>(s))
          if (const Call* g = as_call_of(d->value, Intrinsic::get_arg_val))
            arg_of[d->name] = as<IntImm>(g->args[0])->value;
      std::map<std::string, Expr> host_let;
      for (const Stmt& s : as<Block>(host->body)->stmts)
        if (const Decl* d = as<Decl>(s))
          host_let[d->name] = d->value;
      std::int64_t words = 0; // the accessors' compile-time words come first
      for (const CompileArg& a : f.config->compile_args)
        words += p.find_accessor(a.tensor)->arg_count();
      NameSet names(p);
      std::map<std::string, std::string> ct_of; // runtime let -> compile-time let
      std::vector<Stmt> lets, host_lets;
      struct Swap : Mutator {
        std::map<std::string, std::string>& ct_of;
        std::function<std::string(const std::string&)> bind;
        explicit Swap(std::map<std::string, std::string>& c) : ct_of(c) {}
        Expr mutate_node(const Call& c, const Expr& self) override {
          const bool scaled =
              c.fn == Intrinsic::exp_tile_approx_scaled ||
              c.fn == Intrinsic::exp_tile_approx_noclamp_scaled; // the unclamped form
          const Var* b = scaled ? as<Var>(c.args[1]) : nullptr;
          if (!b)
            return Mutator::mutate_node(c, self);
          const std::string ct = bind(b->name);
          return call(c.fn, {c.args[0], var(ct, Type::u32())}, c.loc.range);
        }
      } swap(ct_of);
      swap.bind = [&](const std::string& b) {
        if (auto it = ct_of.find(b); it != ct_of.end())
          return it->second;
        // b is the runtime arg float_bits(f) of the host; f's bits as a compile-time arg instead,
        // checked > 0 on the host (tt.exp_scale_bits).
        auto n = arg_of.find(b);
        if (n == arg_of.end())
          throw InternalError("internal error: fold-scale-args: '" + b + "' is not a runtime arg");
        const std::string& hv = f.config->runtime_args.at(static_cast<std::size_t>(n->second));
        auto h = host_let.find(hv);
        const Call* bits =
            h == host_let.end() ? nullptr : as_call_of(h->second, Intrinsic::float_bits);
        if (!bits)
          throw InternalError("internal error: fold-scale-args: host value '" + hv +
                              "' is not float_bits of a scalar");
        const std::string ct = names.fresh(b + "_ct");
        host_lets.push_back(
            decl(ct, Type::u32(), call(Intrinsic::tt_exp_scale_bits, {bits->args[0]})));
        lets.push_back(decl(
            ct, Type::u32(),
            call(Intrinsic::get_compile_time_arg_val,
                 {int_imm(words + static_cast<std::int64_t>(f.config->compile_values.size()))})));
        f.config->compile_values.push_back(ct);
        ct_of[b] = ct;
        return ct;
      };
      Stmt body = swap.mutate(f.body);
      lets.insert(lets.end(), as<Block>(body)->stmts.begin(), as<Block>(body)->stmts.end());
      f.body = block(std::move(lets));
      std::vector<Stmt> hb = as<Block>(host->body)->stmts;
      hb.insert(hb.end(), host_lets.begin(), host_lets.end());
      host->body = block(std::move(hb));
    }
  }
  return out;
}

} // namespace tk::lower
