// The SDK JIT's generated chlkc_descriptors.h (tt-metal tt_metal/jit_build/genfiles.cpp,
// generate_all_descriptors), as the emulator's JIT and `ttgen check` put it before a kernel: every
// CB's unpack and pack data formats and tile shapes, which a data-movement kernel reaches too
// (tt_metal/hw/inc/api/dataflow/dataflow_api.h includes chlkc_descriptors.h), and for a compute
// kernel also the math scalars (MATH_FIDELITY, APPROX) and the compute scalars (DST_ACCUM_MODE,
// DST_SYNC_MODE), with the SDK's names, types and values. Both formats of a CB are its data format
// (the SDK's unpacker may hold another in srcA/srcB: get_unpack_dst_formats, not modelled). The SDK
// builds a compute kernel three times, once per TRISC, with one of UCK_CHLKC_UNPACK,
// UCK_CHLKC_MATH, UCK_CHLKC_PACK defined (tt_metal/llrt/hal/tt-1xx/hal_1xx_common.cpp) and the
// arrays of that thread; the emulator runs the three threads' work in one (MATH(x), PACK(x) and
// UNPACK(x) all expand to x), so all three are defined and every array is there. Tiles are 32x32
// (four 16x16 faces), the only tile shape the emulator's CBs hold. Host-side code (used by the
// emulator's JIT and by check/jit.cpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tk::rt::emu {

struct CbDescriptor {
  std::uint8_t format = 255;   // tt::DataFormat; Invalid (255) for a CB the core does not have
  std::uint32_t tile_size = 0; // bytes of one tile in that format; 0 when not configured
};

inline std::string chlkc_descriptors(const std::vector<CbDescriptor>& cbs, bool compute,
                                     bool fp32_dest_acc = false, bool dst_full_sync = false,
                                     int math_fidelity = 4, bool approx = false) {
  std::string d;
  if (compute)
    d = "#define UCK_CHLKC_UNPACK\n#define UCK_CHLKC_MATH\n#define UCK_CHLKC_PACK\n"
        "#include \"llk_defs.h\"\n"
        "constexpr ckernel::MathFidelity MATH_FIDELITY = static_cast<ckernel::MathFidelity>(" +
        std::to_string(math_fidelity) +
        ");\nconstexpr bool APPROX = " + (approx ? "true" : "false") + ";\n";
  const std::string n = std::to_string(cbs.size());
  const auto array = [&](const char* type, const char* name, auto value) {
    d += std::string("[[maybe_unused]] constexpr ") + type + " " + name + "[" + n + "] = {";
    for (std::size_t i = 0; i < cbs.size(); ++i)
      d += (i ? "," : "") + std::to_string(value(cbs[i]));
    d += "};\n";
  };
  const auto format = [](const CbDescriptor& c) { return int{c.format}; };
  const auto size = [](const CbDescriptor& c) { return c.tile_size; };
  const auto constant = [](int v) { return [v](const CbDescriptor&) { return v; }; };
  for (const char* side : {"unpack", "pack"}) {
    const std::string s = side;
    const bool unpack = s == "unpack";
    const char* format_type = unpack ? "std::int32_t" : "unsigned char";
    array(format_type, (s + "_src_format").c_str(), format);
    array(format_type, (s + "_dst_format").c_str(), format);
    array("uint8_t", (s + "_tile_num_faces").c_str(), constant(4));
    array("uint8_t", (s + "_partial_face").c_str(), constant(0));
    array("uint8_t", (s + "_tile_face_r_dim").c_str(), constant(16));
    array("uint8_t", (s + "_narrow_tile").c_str(), constant(0));
    array("uint8_t", (s + "_tile_r_dim").c_str(), constant(32));
    array("uint8_t", (s + "_tile_c_dim").c_str(), constant(32));
    array("uint16_t", (s + "_tile_size").c_str(), size);
    array("uint8_t", (s + "_num_faces_r_dim").c_str(), constant(2));
    array("uint8_t", (s + "_num_faces_c_dim").c_str(), constant(2));
  }
  if (!compute)
    return d;
  d += std::string("constexpr bool DST_ACCUM_MODE = ") + (fp32_dest_acc ? "true" : "false") +
       ";\n#define DST_SYNC_MODE DstSync::Sync" + (dst_full_sync ? "Full" : "Half") + "\n";
  return d;
}

} // namespace tk::rt::emu
