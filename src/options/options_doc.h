// Renders the option table as the Markdown reference docs/options.md.
#pragma once

#include <string>

namespace tributary::options {

// The full text of docs/options.md, starting with a "generated, do not edit" banner.
std::string GenerateOptionsDoc();

}  // namespace tributary::options
