// The header dict of a .npy file: a Python literal such as
// "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", read strictly.
#pragma once

#include <string>
#include <string_view>
#include <variant>

#include "engine/ir/shape.h"

namespace graft::eval {

struct NpyHeaderDict {
  std::string descr;  // without its quotes: "<f4"
  bool fortran_order = false;
  Shape shape;
};

/// Parses the dict numpy writes: exactly the keys 'descr', 'fortran_order' and 'shape' once
/// each, a string, True or False, and a tuple of non-negative integers, in any order, with an
/// optional trailing comma and blank padding. What numpy's writer never produces (other keys,
/// a key twice, a shape element that is empty, signed or has leading zeros) is refused: the
/// error names the first offending byte's offset in the dict.
std::variant<NpyHeaderDict, std::string> parse_npy_header_dict(std::string_view text);

}  // namespace graft::eval
