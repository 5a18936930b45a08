// The one translation unit that instantiates the X3 grammar (heavy templates compile once).
#include "parser/grammar_def.hpp"

namespace tk::parser {
namespace grammar {
BOOST_SPIRIT_INSTANTIATE(kernel_item_type, Iterator, context_type)
} // namespace grammar

const grammar::kernel_item_type& kernel_item() {
  return grammar::kernel_item;
}

} // namespace tk::parser
