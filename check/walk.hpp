// ttgen check's AST walk (walk.cpp): kernel_main of a parsed kernel, summarised into model.hpp's
// events, loops and branches.
#pragma once

#include "check/model.hpp"

#include <clang/AST/Decl.h>
#include <clang/Basic/SourceLocation.h>

#include <string>
#include <vector>

namespace clang {
class ASTContext;
}

namespace tk::check {

/// Fills `kernel.body` from `main_fn`, defined in `file` of `ctx`. `ct_args_known`: the
/// compile-time args have the host's values (--compile-args), so what depends on them is
/// evaluated, not a symbol. `sdk_dirs`: the folders of the SDK's own headers (the mirror, or the
/// tt_metal/ of --sdk's tree), whose calls are modelled or opaque; a helper defined anywhere else
/// is followed where it is called.
void walk_kernel_main(clang::ASTContext& ctx, clang::FileID file, Kernel& kernel,
                      bool ct_args_known, std::vector<std::string> sdk_dirs,
                      const clang::FunctionDecl& main_fn);

} // namespace tk::check
