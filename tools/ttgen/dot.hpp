// --emit=dot: the dataflow of each kernel of a module lowered through the TT chain, as a Graphviz
// graph: one cluster per kernel with its DRAM tensors, the reader, compute and writer kernels and
// the circular buffers between them (index, depth in pages, tiles moved per core).
#pragma once

#include "lowering/ir/module.hpp"

#include <string>

namespace tk::ttgen {

/// The DOT text of `m` (after at least split-kernels of the TT chain).
std::string dot_graph(const ir::Module& m);

} // namespace tk::ttgen
