#include "lowering/ir/types.hpp"

#include <array>
#include <utility>

namespace tk::ir {

namespace {
// Each enum's printed names, indexed by position; the reverse lookup is an exact comparison.
template <class E, std::size_t N>
struct Names {
  std::array<std::pair<E, std::string_view>, N> entries;
  std::string_view name(E e) const {
    for (const auto& [v, s] : entries)
      if (v == e)
        return s;
    return "?";
  }
  std::optional<E> find(std::string_view s) const {
    for (const auto& [v, n] : entries)
      if (n == s)
        return v;
    return std::nullopt;
  }
};
template <class E, class... P>
constexpr auto names(P... p) {
  return Names<E, sizeof...(P)>{{{p...}}};
}

constexpr auto kDType = names<DType>(std::pair{DType::bf16, "bf16"}, std::pair{DType::f32, "f32"},
                                     std::pair{DType::bfp8, "bfp8"});
constexpr auto kRole = names<ForRole>(
    std::pair{ForRole::parallel, "parallel"}, std::pair{ForRole::serial, "serial"},
    std::pair{ForRole::reduction, "reduction"}, std::pair{ForRole::per_core, "per_core"},
    std::pair{ForRole::per_thread, "per_thread"});
constexpr auto kFunc =
    names<FuncKind>(std::pair{FuncKind::kernel, "kernel"}, std::pair{FuncKind::reader, "reader"},
                    std::pair{FuncKind::compute, "compute"}, std::pair{FuncKind::writer, "writer"},
                    std::pair{FuncKind::cpu, "cpu"}, std::pair{FuncKind::host, "host"},
                    std::pair{FuncKind::host_core, "host_core"});
constexpr auto kTensorRole = names<TensorRole>(std::pair{TensorRole::input, "input"},
                                               std::pair{TensorRole::output, "output"},
                                               std::pair{TensorRole::intermediate, "intermediate"});
constexpr auto kCBRole =
    names<CBRole>(std::pair{CBRole::input, "input"}, std::pair{CBRole::output, "output"},
                  std::pair{CBRole::intermediate, "intermediate"},
                  std::pair{CBRole::scaler, "scaler"}, std::pair{CBRole::mask, "mask"},
                  std::pair{CBRole::partials, "partials"}, std::pair{CBRole::row, "row"});
constexpr auto kFormat = names<DataFormat>(std::pair{DataFormat::Float32, "Float32"},
                                           std::pair{DataFormat::Float16_b, "Float16_b"},
                                           std::pair{DataFormat::Bfp8_b, "Bfp8_b"});
constexpr auto kMemory =
    names<MemoryKind>(std::pair{MemoryKind::dram, "dram"}, std::pair{MemoryKind::l1, "l1"});
constexpr auto kLayout = names<LayoutKind>(std::pair{LayoutKind::interleaved, "interleaved"},
                                           std::pair{LayoutKind::sharded, "sharded"});
} // namespace

std::string_view to_string(DType d) {
  return kDType.name(d);
}
std::optional<DType> dtype_from_string(std::string_view s) {
  return kDType.find(s);
}
std::int64_t tile_bytes(DType d) {
  return d == DType::bf16 ? 2048 : d == DType::f32 ? 4096 : 1088; // bfp8: tt::tile_size(Bfp8_b)
}

std::string to_string(Type t) {
  switch (t.kind) {
  case Type::Kind::void_:
    return "void";
  case Type::Kind::i32:
    return "i32";
  case Type::Kind::u32:
    return "u32";
  case Type::Kind::f32:
    return "f32";
  case Type::Kind::boolean:
    return "bool";
  case Type::Kind::tile:
    return "tile<" + std::string(to_string(t.dtype)) + ">";
  case Type::Kind::cb:
    return "cb";
  case Type::Kind::tensor:
    return "tensor";
  case Type::Kind::enumc:
    return "enum";
  case Type::Kind::row:
    return "row<" + std::string(to_string(t.dtype)) + ">";
  }
  return "?";
}

std::optional<Type> type_from_string(std::string_view s) {
  for (Type t : {Type::void_(), Type::i32(), Type::u32(), Type::f32(), Type::boolean(),
                 Type::tile(DType::bf16), Type::tile(DType::f32), Type::tile(DType::bfp8),
                 Type::cb(), Type::tensor(), Type::enumc(), Type::row(DType::f32)})
    if (to_string(t) == s)
      return t;
  return std::nullopt;
}

std::string_view to_string(ForRole r) {
  return kRole.name(r);
}
std::optional<ForRole> for_role_from_string(std::string_view s) {
  return kRole.find(s);
}
std::string_view to_string(FuncKind k) {
  return kFunc.name(k);
}
std::optional<FuncKind> func_kind_from_string(std::string_view s) {
  return kFunc.find(s);
}
std::string_view to_string(TensorRole r) {
  return kTensorRole.name(r);
}
std::optional<TensorRole> tensor_role_from_string(std::string_view s) {
  return kTensorRole.find(s);
}
std::string_view to_string(CBRole r) {
  return kCBRole.name(r);
}
std::optional<CBRole> cb_role_from_string(std::string_view s) {
  return kCBRole.find(s);
}
std::string_view to_string(DataFormat f) {
  return kFormat.name(f);
}
std::optional<DataFormat> data_format_from_string(std::string_view s) {
  return kFormat.find(s);
}
DataFormat data_format_of(DType d) {
  return d == DType::bf16  ? DataFormat::Float16_b
         : d == DType::f32 ? DataFormat::Float32
                           : DataFormat::Bfp8_b;
}
std::string_view to_string(MemoryKind m) {
  return kMemory.name(m);
}
std::optional<MemoryKind> memory_kind_from_string(std::string_view s) {
  return kMemory.find(s);
}
std::string_view to_string(LayoutKind k) {
  return kLayout.name(k);
}
std::optional<LayoutKind> layout_kind_from_string(std::string_view s) {
  return kLayout.find(s);
}

} // namespace tk::ir
