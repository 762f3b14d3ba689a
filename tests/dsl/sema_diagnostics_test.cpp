// Sema diagnostics: one malformed (or suspicious) snippet per diagnostic sema can emit, each
// compared as the whole rendered text: message, file:line:col, source line, caret and notes.
// `loads` says whether the set is still accepted (warnings only).
#include <catch2/catch.hpp>

#include "tests/dsl/rules_testing.h"

using graft::testing::load_rules;

namespace {

struct SemaCase {
  const char* name;
  const char* input;
  bool loads;
  const char* expected;
};

// clang-format off
const SemaCase kSemaCases[] = {
    {"unknown op with a suggestion",
     "rule r { pattern(x) { return rellu(x) } replacement { return x } }",
     false,
     R"--(test.rules:1:30: error: unknown op 'rellu' (did you mean 'relu'?)
 1 | rule r { pattern(x) { return rellu(x) } replacement { return x } }
   |                              ^~~~~
)--"},
    {"unknown op without a suggestion",
     "rule r { pattern(x) { return zzzzzz(x) } replacement { return x } }",
     false,
     R"--(test.rules:1:30: error: unknown op 'zzzzzz'
 1 | rule r { pattern(x) { return zzzzzz(x) } replacement { return x } }
   |                              ^~~~~~
)--"},
    {"too many arguments",
     "rule r { pattern(x) { return relu(x, x) } replacement { return x } }",
     false,
     R"--(test.rules:1:38: error: too many arguments for 'relu': expected at most 1, got 2
 1 | rule r { pattern(x) { return relu(x, x) } replacement { return x } }
   |                                      ^
)--"},
    {"unknown parameter with a suggestion",
     "rule r { pattern(x, w) { return conv2d(x, w, strid=1) } replacement { return x } }",
     false,
     R"--(test.rules:1:46: error: 'conv2d' has no parameter 'strid' (did you mean 'stride'?)
 1 | rule r { pattern(x, w) { return conv2d(x, w, strid=1) } replacement { return x } }
   |                                              ^~~~~
)--"},
    {"parameter given twice",
     "rule r { pattern(x, w) { return conv2d(x, w, input=x) } replacement { return x } }",
     false,
     R"--(test.rules:1:46: error: parameter 'input' of 'conv2d' is given twice
 1 | rule r { pattern(x, w) { return conv2d(x, w, input=x) } replacement { return x } }
   |                                              ^~~~~~~
test.rules:1:40: note: first given here
 1 | rule r { pattern(x, w) { return conv2d(x, w, input=x) } replacement { return x } }
   |                                        ^
)--"},
    {"positional argument after a keyword",
     "rule r { pattern(x, w) { return conv2d(x, weight=w, 1) } replacement { return x } }",
     false,
     R"--(test.rules:1:53: error: positional argument after a keyword argument
 1 | rule r { pattern(x, w) { return conv2d(x, weight=w, 1) } replacement { return x } }
   |                                                     ^
)--"},
    {"missing operand in a pattern",
     "rule r { pattern(x) { return conv2d(x) } replacement { return x } }",
     false,
     R"--(test.rules:1:30: error: missing operand 'weight' of 'conv2d' (write '_' to match any value)
 1 | rule r { pattern(x) { return conv2d(x) } replacement { return x } }
   |                              ^~~~~~~~~
)--"},
    {"missing operand in a replacement",
     "rule r { pattern(x) { return relu(x) } replacement { return conv2d(x) } }",
     false,
     R"--(test.rules:1:61: error: missing operand 'weight' of 'conv2d'
 1 | rule r { pattern(x) { return relu(x) } replacement { return conv2d(x) } }
   |                                                             ^~~~~~~~~
)--"},
    {"attribute of the wrong type",
     "rule r { pattern(x, w) { return conv2d(x, w, stride=\"a\") } replacement { return x } }",
     false,
     R"--(test.rules:1:53: error: bad value for 'stride' of 'conv2d': expected int[2], got str 'a'
 1 | rule r { pattern(x, w) { return conv2d(x, w, stride="a") } replacement { return x } }
   |                                                     ^~~
)--"},
    {"attribute list of the wrong length",
     "rule r { pattern(x, w) { return conv2d(x, w, stride=[1, 2, 3]) } replacement { return x } }",
     false,
     R"--(test.rules:1:53: error: bad value for 'stride' of 'conv2d': expected int[2], got int[] [1, 2, 3]
 1 | rule r { pattern(x, w) { return conv2d(x, w, stride=[1, 2, 3]) } replacement { return x } }
   |                                                     ^~~~~~~~~
)--"},
    {"attribute given a tensor",
     "rule r { pattern(x, w) { return conv2d(x, w, groups=x) } replacement { return x } }",
     false,
     R"--(test.rules:1:53: error: 'groups' of 'conv2d' is an attribute: expected a literal, a '$' variable or '_'
 1 | rule r { pattern(x, w) { return conv2d(x, w, groups=x) } replacement { return x } }
   |                                                     ^
)--"},
    {"operand given a string",
     "rule r { pattern(x) { return relu(\"x\") } replacement { return x } }",
     false,
     R"--(test.rules:1:35: error: operand 'input' of 'relu' must be a tensor, not a string
 1 | rule r { pattern(x) { return relu("x") } replacement { return x } }
   |                                   ^~~
test.rules:1:18: warning: pattern parameter 'x' is never used in the pattern
 1 | rule r { pattern(x) { return relu("x") } replacement { return x } }
   |                  ^
)--"},
    {"operand given a number",
     "rule r { pattern(x) { return conv2d(x, 1.0) } replacement { return x } }",
     false,
     R"--(test.rules:1:40: error: operand 'weight' of 'conv2d' must be a tensor, not a number
 1 | rule r { pattern(x) { return conv2d(x, 1.0) } replacement { return x } }
   |                                        ^~~
)--"},
    {"none for a required operand",
     "rule r { pattern(x) { return relu(none) } replacement { return x } }",
     false,
     R"--(test.rules:1:35: error: operand 'input' of 'relu' cannot be 'none'
 1 | rule r { pattern(x) { return relu(none) } replacement { return x } }
   |                                   ^~~~
test.rules:1:18: warning: pattern parameter 'x' is never used in the pattern
 1 | rule r { pattern(x) { return relu(none) } replacement { return x } }
   |                  ^
)--"},
    {"optional parameter for a required operand",
     "rule r { pattern(x, b?) { return conv2d(x, b) } replacement { return x } }",
     false,
     R"--(test.rules:1:44: error: 'b' may be none, but operand 'weight' of 'conv2d' is required
 1 | rule r { pattern(x, b?) { return conv2d(x, b) } replacement { return x } }
   |                                            ^
)--"},
    {"'in' on an operand",
     "rule r { pattern(x) { return relu(input in {1}) } replacement { return x } }",
     false,
     R"--(test.rules:1:35: error: 'in' constraints apply to attributes, and 'input' of 'relu' is an operand
 1 | rule r { pattern(x) { return relu(input in {1}) } replacement { return x } }
   |                                   ^~~~~~~~~~~~
test.rules:1:18: warning: pattern parameter 'x' is never used in the pattern
 1 | rule r { pattern(x) { return relu(input in {1}) } replacement { return x } }
   |                  ^
)--"},
    {"tolerance on an int attribute",
     "rule r { pattern(x, w) { return conv2d(x, w, groups=1 ~ 0.5) } replacement { return x } }",
     false,
     R"--(test.rules:1:53: error: a tolerance needs a float attribute, but 'groups' of 'conv2d' is int
 1 | rule r { pattern(x, w) { return conv2d(x, w, groups=1 ~ 0.5) } replacement { return x } }
   |                                                     ^~~~~~~
)--"},
    {"negative tolerance",
     "rule r { pattern(x) { return mul(x, 0.5 ~ -1e-3) } replacement { return x } }",
     false,
     R"--(test.rules:1:43: error: tolerance must be a non-negative number, got '-1e-3'
 1 | rule r { pattern(x) { return mul(x, 0.5 ~ -1e-3) } replacement { return x } }
   |                                           ^~~~~
)--"},
    {"tolerance in a replacement",
     "rule r { pattern(x) { return relu(x) } replacement { return mul(x, 0.5 ~ 1e-3) } }",
     false,
     R"--(test.rules:1:68: error: a tolerance '~' is only allowed in a pattern
 1 | rule r { pattern(x) { return relu(x) } replacement { return mul(x, 0.5 ~ 1e-3) } }
   |                                                                    ^~~~~~~~~~
)--"},
    {"empty range",
     "rule r { pattern(x, w) { return conv2d(x, w, groups in 4..1) } replacement { return x } }",
     false,
     R"--(test.rules:1:56: error: empty range: 4 is greater than 1
 1 | rule r { pattern(x, w) { return conv2d(x, w, groups in 4..1) } replacement { return x } }
   |                                                        ^~~~
)--"},
    {"range on a list attribute",
     "rule r { pattern(x, w) { return conv2d(x, w, stride in 1..2) } replacement { return x } }",
     false,
     R"--(test.rules:1:56: error: a range needs a number attribute, but 'stride' of 'conv2d' is int[2]
 1 | rule r { pattern(x, w) { return conv2d(x, w, stride in 1..2) } replacement { return x } }
   |                                                        ^~~~
)--"},
    {"set value of the wrong type",
     "rule r { pattern(x, w) { return conv2d(x, w, groups in {1, \"a\"}) } replacement { return x } }",
     false,
     R"--(test.rules:1:60: error: bad value for 'groups' of 'conv2d': expected int, got str 'a'
 1 | rule r { pattern(x, w) { return conv2d(x, w, groups in {1, "a"}) } replacement { return x } }
   |                                                            ^~~
)--"},
    {"undeclared name in a pattern",
     "rule r { pattern(x, yy) { return relu(y) } replacement { return x } }",
     false,
     R"--(test.rules:1:39: error: use of undeclared name 'y' (did you mean 'x'?)
 1 | rule r { pattern(x, yy) { return relu(y) } replacement { return x } }
   |                                       ^
test.rules:1:18: warning: pattern parameter 'x' is never used in the pattern
 1 | rule r { pattern(x, yy) { return relu(y) } replacement { return x } }
   |                  ^
test.rules:1:21: warning: pattern parameter 'yy' is never used in the pattern
 1 | rule r { pattern(x, yy) { return relu(y) } replacement { return x } }
   |                     ^~
)--"},
    {"unbound name in a replacement",
     "rule r { pattern(x, w) { return relu(x) } replacement { return relu(q) } }",
     false,
     R"--(test.rules:1:21: warning: pattern parameter 'w' is never used in the pattern
 1 | rule r { pattern(x, w) { return relu(x) } replacement { return relu(q) } }
   |                     ^
test.rules:1:69: error: use of undeclared name 'q' (did you mean 'x'?)
 1 | rule r { pattern(x, w) { return relu(x) } replacement { return relu(q) } }
   |                                                                     ^
)--"},
    {"unbound attribute variable in a replacement",
     "rule r { pattern(x, w) { return conv2d(x, w, groups=$g) } replacement { return conv2d(x, w, groups=$h) } }",
     false,
     R"--(test.rules:1:100: error: '$h' is not bound by the pattern (did you mean '$g'?)
 1 | rule r { pattern(x, w) { return conv2d(x, w, groups=$g) } replacement { return conv2d(x, w, groups=$h) } }
   |                                                                                                    ^~
test.rules:1:53: warning: '$g' is bound but never used
 1 | rule r { pattern(x, w) { return conv2d(x, w, groups=$g) } replacement { return conv2d(x, w, groups=$h) } }
   |                                                     ^~
)--"},
    {"attribute variable bound to two types",
     "rule r { pattern(x, w) { return conv2d(x, w, stride=$s, groups=$s) } replacement { return x } }",
     false,
     R"--(test.rules:1:64: error: '$s' is bound to 'stride' of 'conv2d' (int[2]) and to 'groups' of 'conv2d' (int)
 1 | rule r { pattern(x, w) { return conv2d(x, w, stride=$s, groups=$s) } replacement { return x } }
   |                                                                ^~
test.rules:1:53: note: '$s' is first bound here
 1 | rule r { pattern(x, w) { return conv2d(x, w, stride=$s, groups=$s) } replacement { return x } }
   |                                                     ^~
)--"},
    {"attribute variable used with the wrong type",
     "rule r { pattern(x, w) { return conv2d(x, w, stride=$s) } replacement { return conv2d(x, w, groups=$s) } }",
     false,
     R"--(test.rules:1:100: error: '$s' holds 'stride' of 'conv2d' (int[2]), which does not fit 'groups' of 'conv2d' (int)
 1 | rule r { pattern(x, w) { return conv2d(x, w, stride=$s) } replacement { return conv2d(x, w, groups=$s) } }
   |                                                                                                    ^~
test.rules:1:53: note: '$s' is bound here
 1 | rule r { pattern(x, w) { return conv2d(x, w, stride=$s) } replacement { return conv2d(x, w, groups=$s) } }
   |                                                     ^~
)--"},
    {"unused attribute variable",
     "rule r { pattern(x, w) { return conv2d(x, w, padding=$p) } replacement { return x } }",
     true,
     R"--(test.rules:1:54: warning: '$p' is bound but never used
 1 | rule r { pattern(x, w) { return conv2d(x, w, padding=$p) } replacement { return x } }
   |                                                      ^~
)--"},
    {"unused pattern parameter",
     "rule r { pattern(x, z) { return relu(x) } replacement { return x } }",
     true,
     R"--(test.rules:1:21: warning: pattern parameter 'z' is never used in the pattern
 1 | rule r { pattern(x, z) { return relu(x) } replacement { return x } }
   |                     ^
)--"},
    {"unused pattern value",
     "rule r { pattern(x) { y = relu(x); return relu(x) } replacement { return x } }",
     false,
     R"--(test.rules:1:23: error: pattern value 'y' is never used or returned
 1 | rule r { pattern(x) { y = relu(x); return relu(x) } replacement { return x } }
   |                       ^
)--"},
    {"pattern statement that is not an op",
     "rule r { pattern(x) { y = x; return relu(y) } replacement { return x } }",
     false,
     R"--(test.rules:1:27: error: a pattern statement must match an op, as in 'y = relu(x)'
 1 | rule r { pattern(x) { y = x; return relu(y) } replacement { return x } }
   |                           ^
)--"},
    {"pattern returning its parameter",
     "rule r { pattern(x) { return x } replacement { return x } }",
     false,
     R"--(test.rules:1:30: error: the pattern returns its parameter 'x'; a pattern must match at least one op
 1 | rule r { pattern(x) { return x } replacement { return x } }
   |                              ^
)--"},
    {"pattern returning a number",
     "rule r { pattern(x) { return 1 } replacement { return x } }",
     false,
     R"--(test.rules:1:30: error: a pattern must return the results of ops
 1 | rule r { pattern(x) { return 1 } replacement { return x } }
   |                              ^
test.rules:1:18: warning: pattern parameter 'x' is never used in the pattern
 1 | rule r { pattern(x) { return 1 } replacement { return x } }
   |                  ^
)--"},
    {"value returned twice",
     "rule r { pattern(x) { y = relu(x); return y, y } replacement { return x, x } }",
     false,
     R"--(test.rules:1:46: error: 'y' is returned twice
 1 | rule r { pattern(x) { y = relu(x); return y, y } replacement { return x, x } }
   |                                              ^
)--"},
    {"redefinition in a pattern",
     "rule r { pattern(x) { y = relu(x); y = relu(y); return y } replacement { return x } }",
     false,
     R"--(test.rules:1:36: error: redefinition of 'y'
 1 | rule r { pattern(x) { y = relu(x); y = relu(y); return y } replacement { return x } }
   |                                    ^
test.rules:1:23: note: 'y' is first defined here
 1 | rule r { pattern(x) { y = relu(x); y = relu(y); return y } replacement { return x } }
   |                       ^
)--"},
    {"duplicate parameter",
     "rule r { pattern(x, x) { return add(x, x) } replacement { return x } }",
     false,
     R"--(test.rules:1:21: error: duplicate parameter 'x'
 1 | rule r { pattern(x, x) { return add(x, x) } replacement { return x } }
   |                     ^
test.rules:1:18: note: 'x' is first declared here
 1 | rule r { pattern(x, x) { return add(x, x) } replacement { return x } }
   |                  ^
)--"},
    {"'_' as a parameter name",
     "rule r { pattern(x, _) { return relu(x) } replacement { return x } }",
     false,
     R"--(test.rules:1:21: error: '_' cannot be used as a name
 1 | rule r { pattern(x, _) { return relu(x) } replacement { return x } }
   |                     ^
)--"},
    {"replacement redefining a pattern name",
     "rule r { pattern(x) { return relu(x) } replacement { x = relu(x); return x } }",
     false,
     R"--(test.rules:1:54: error: redefinition of 'x'
 1 | rule r { pattern(x) { return relu(x) } replacement { x = relu(x); return x } }
   |                                                      ^
test.rules:1:18: note: 'x' is first defined here
 1 | rule r { pattern(x) { return relu(x) } replacement { x = relu(x); return x } }
   |                  ^
)--"},
    {"return count mismatch",
     "rule r { pattern(x) { return relu(x) } replacement { return x, x } }",
     false,
     R"--(test.rules:1:54: error: the replacement returns 2 values but the pattern returns 1
 1 | rule r { pattern(x) { return relu(x) } replacement { return x, x } }
   |                                                      ^~~~~~~~~~~
test.rules:1:23: note: the pattern's return is here
 1 | rule r { pattern(x) { return relu(x) } replacement { return x, x } }
   |                       ^~~~~~~~~~~~~~
)--"},
    {"replacement returning an optional parameter",
     "rule r { pattern(x, w, b?) { return conv2d(x, w, b) } replacement { return b } }",
     false,
     R"--(test.rules:1:76: error: the replacement returns 'b', which may be none
 1 | rule r { pattern(x, w, b?) { return conv2d(x, w, b) } replacement { return b } }
   |                                                                            ^
)--"},
    {"replacement returning a number",
     "rule r { pattern(x) { return relu(x) } replacement { return 1 } }",
     false,
     R"--(test.rules:1:61: error: a replacement's return value must be a tensor, not a number
 1 | rule r { pattern(x) { return relu(x) } replacement { return 1 } }
   |                                                             ^
)--"},
    {"unused replacement value",
     "rule r { pattern(x) { return relu(x) } replacement { t = relu(x); return x } }",
     true,
     R"--(test.rules:1:54: warning: 't' is computed but never used
 1 | rule r { pattern(x) { return relu(x) } replacement { t = relu(x); return x } }
   |                                                      ^
)--"},
    {"'?\?' in a pattern",
     "rule r { pattern(x) { return add(x, x ?\? x) } replacement { return x } }",
     false,
     R"--(test.rules:1:39: error: '??' is only allowed in a replacement
 1 | rule r { pattern(x) { return add(x, x ?? x) } replacement { return x } }
   |                                       ^~
)--"},
    {"'?\?' on a required name",
     "rule r { pattern(x) { return relu(x) } replacement { return (x ?\? 0) * x } }",
     false,
     R"--(test.rules:1:62: error: the left side of '??' must be an optional pattern parameter such as 'b?'
 1 | rule r { pattern(x) { return relu(x) } replacement { return (x ?? 0) * x } }
   |                                                              ^
)--"},
    {"op alternatives in a replacement",
     "rule r { pattern(x) { return relu(x) } replacement { return (relu | mul)(x) } }",
     false,
     R"--(test.rules:1:62: error: op alternatives are only allowed in a pattern
 1 | rule r { pattern(x) { return relu(x) } replacement { return (relu | mul)(x) } }
   |                                                              ^~~~~~~~~~
)--"},
    {"op class in a replacement",
     "rule r { pattern(x) { return relu(x) } replacement { return activation(x) } }",
     false,
     R"--(test.rules:1:61: error: 'activation' is an op class; a replacement must name one op
 1 | rule r { pattern(x) { return relu(x) } replacement { return activation(x) } }
   |                                                             ^~~~~~~~~~
)--"},
    {"'ordered' in a replacement",
     "rule r { pattern(x) { return relu(x) } replacement { return ordered add(x, x) } }",
     false,
     R"--(test.rules:1:61: error: 'ordered' is only allowed in a pattern
 1 | rule r { pattern(x) { return relu(x) } replacement { return ordered add(x, x) } }
   |                                                             ^~~~~~~~~~~~~~~~~
)--"},
    {"'ordered' on a non-commutative op",
     "rule r { pattern(x, w) { return ordered conv2d(x, w) } replacement { return x } }",
     true,
     R"--(test.rules:1:41: warning: 'ordered' has no effect: 'conv2d' is not commutative
 1 | rule r { pattern(x, w) { return ordered conv2d(x, w) } replacement { return x } }
   |                                         ^~~~~~
)--"},
    {"'_' in a replacement",
     "rule r { pattern(x) { return relu(x) } replacement { return relu(_) } }",
     false,
     R"--(test.rules:1:66: error: '_' can only be used in a pattern
 1 | rule r { pattern(x) { return relu(x) } replacement { return relu(_) } }
   |                                                                  ^
)--"},
    {"fold of a non-constant value",
     "rule r { pattern(x) { return relu(x) } replacement { return fold(x * 2) } }",
     false,
     R"--(test.rules:1:66: error: 'fold' needs a constant expression, but 'x' is not constant
 1 | rule r { pattern(x) { return relu(x) } replacement { return fold(x * 2) } }
   |                                                                  ^~~~~
test.rules:1:18: note: declare it constant with 'where const(x)'
 1 | rule r { pattern(x) { return relu(x) } replacement { return fold(x * 2) } }
   |                  ^
)--"},
    {"fold in a pattern",
     "rule r { pattern(x) { return fold(x) } replacement { return x } }",
     false,
     R"--(test.rules:1:30: error: 'fold' is only allowed in a replacement
 1 | rule r { pattern(x) { return fold(x) } replacement { return x } }
   |                              ^~~~
test.rules:1:18: warning: pattern parameter 'x' is never used in the pattern
 1 | rule r { pattern(x) { return fold(x) } replacement { return x } }
   |                  ^
)--"},
    {"arithmetic on two numbers",
     "rule r { pattern(x) { return relu(x) } replacement { return x * (1 + 2) } }",
     false,
     R"--(test.rules:1:68: error: '+' needs a tensor operand; both sides are numbers
 1 | rule r { pattern(x) { return relu(x) } replacement { return x * (1 + 2) } }
   |                                                                    ^
)--"},
    {"alternative that does not fit the arguments",
     "rule r { pattern(x) { return (relu | conv2d)(x) } replacement { return x } }",
     false,
     R"--(test.rules:1:30: error: alternative 'conv2d': missing operand 'weight' of 'conv2d' (write '_' to match any value)
 1 | rule r { pattern(x) { return (relu | conv2d)(x) } replacement { return x } }
   |                              ^~~~~~~~~~~~~~~~~~
)--"},
    {"unknown predicate",
     "rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where use(c) == 1 replacement { return conv2d(x, w, groups=$g, stride=$s) } }",
     false,
     R"--(test.rules:1:89: error: unknown predicate 'use' (did you mean 'uses'?)
 1 | rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where use(c) == 1 replacement { return conv2d(x, w, groups=$g, stride=$s) } }
   |                                                                                         ^~~
)--"},
    {"predicate with the wrong arity",
     "rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where uses(c, x) == 1 replacement { return conv2d(x, w, groups=$g, stride=$s) } }",
     false,
     R"--(test.rules:1:89: error: 'uses' takes 1 argument, got 2
 1 | rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where uses(c, x) == 1 replacement { return conv2d(x, w, groups=$g, stride=$s) } }
   |                                                                                         ^~~~~~~~~~
)--"},
    {"predicate that must be compared",
     "rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where uses(c) replacement { return conv2d(x, w, groups=$g, stride=$s) } }",
     false,
     R"--(test.rules:1:89: error: 'uses(...)' must be compared, as in 'uses(y) == 1'
 1 | rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where uses(c) replacement { return conv2d(x, w, groups=$g, stride=$s) } }
   |                                                                                         ^~~~~~~
)--"},
    {"condition that cannot be compared",
     "rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where const(w) == 1 replacement { return conv2d(x, w, groups=$g, stride=$s) } }",
     false,
     R"--(test.rules:1:98: error: 'const(...)' is a condition and cannot be compared
 1 | rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where const(w) == 1 replacement { return conv2d(x, w, groups=$g, stride=$s) } }
   |                                                                                                  ^~
)--"},
    {"const of a computed value",
     "rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where const(c) replacement { return conv2d(x, w, groups=$g, stride=$s) } }",
     false,
     R"--(test.rules:1:95: error: 'c' is computed by the pattern, so it is never a constant
 1 | rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where const(c) replacement { return conv2d(x, w, groups=$g, stride=$s) } }
   |                                                                                               ^
)--"},
    {"buffer of a computed value",
     "rule r { pattern(x, w) { c = conv2d(x, w); return relu(c) } where buffer(c) replacement { return c } }",
     false,
     R"--(test.rules:1:74: error: 'c' is computed by the pattern, so it is never a buffer
 1 | rule r { pattern(x, w) { c = conv2d(x, w); return relu(c) } where buffer(c) replacement { return c } }
   |                                                                          ^
)--"},
    {"param compared",
     "rule r { pattern(x, w) { return conv2d(x, w) } where param(w) == 1 replacement { return x } }",
     false,
     R"--(test.rules:1:63: error: 'param(...)' is a condition and cannot be compared
 1 | rule r { pattern(x, w) { return conv2d(x, w) } where param(w) == 1 replacement { return x } }
   |                                                               ^~
)--"},
    {"param of something that is not a name",
     "rule r { pattern(x, w) { return conv2d(x, w) } where param(relu(x)) replacement { return x } }",
     false,
     R"--(test.rules:1:60: error: 'param' expects the name of a pattern value
 1 | rule r { pattern(x, w) { return conv2d(x, w) } where param(relu(x)) replacement { return x } }
   |                                                            ^~~~~~~
)--"},
    {"unknown predicate close to buffer",
     "rule r { pattern(x, w) { return conv2d(x, w) } where bufer(w) replacement { return x } }",
     false,
     R"--(test.rules:1:54: error: unknown predicate 'bufer' (did you mean 'buffer'?)
 1 | rule r { pattern(x, w) { return conv2d(x, w) } where bufer(w) replacement { return x } }
   |                                                      ^~~~~
)--"},
    {"value not compared",
     "rule r { pattern(x, w) { return conv2d(x, w) } where value(w) replacement { return x } }",
     false,
     R"--(test.rules:1:54: error: 'value(...)' must be compared, as in 'value(w) == 0'
 1 | rule r { pattern(x, w) { return conv2d(x, w) } where value(w) replacement { return x } }
   |                                                      ^~~~~~~~
)--"},
    {"value compared with a string",
     "rule r { pattern(x, w) { return conv2d(x, w) } where value(w) in {0, \"a\"} replacement { return x } }",
     false,
     R"--(test.rules:1:70: error: 'value(...)' is compared with a number such as 0 or 1.5
 1 | rule r { pattern(x, w) { return conv2d(x, w) } where value(w) in {0, "a"} replacement { return x } }
   |                                                                      ^~~
)--"},
    {"value ordered within a tolerance",
     "rule r { pattern(x, w) { return conv2d(x, w) } where value(w) < 1 ~ 0.1 replacement { return x } }",
     false,
     R"--(test.rules:1:69: error: a tolerance applies to '==', '!=' and 'in' only, not to '<'
 1 | rule r { pattern(x, w) { return conv2d(x, w) } where value(w) < 1 ~ 0.1 replacement { return x } }
   |                                                                     ^~~
)--"},
    {"value with a negative tolerance",
     "rule r { pattern(x, w) { return conv2d(x, w) } where value(w) == 1 ~ -0.1 replacement { return x } }",
     false,
     R"--(test.rules:1:70: error: tolerance must be a non-negative number, got '-0.1'
 1 | rule r { pattern(x, w) { return conv2d(x, w) } where value(w) == 1 ~ -0.1 replacement { return x } }
   |                                                                      ^~~~
)--"},
    {"value of a computed value",
     "rule r { pattern(x, w) { c = conv2d(x, w); return relu(c) } where value(c) == 0 replacement { return c } }",
     false,
     R"--(test.rules:1:73: error: 'c' is computed by the pattern, so it is never a constant
 1 | rule r { pattern(x, w) { c = conv2d(x, w); return relu(c) } where value(c) == 0 replacement { return c } }
   |                                                                         ^
)--"},
    {"value of two values",
     "rule r { pattern(x, w) { return conv2d(x, w) } where value(w, x) == 0 replacement { return x } }",
     false,
     R"--(test.rules:1:54: error: 'value' takes 1 argument, got 2
 1 | rule r { pattern(x, w) { return conv2d(x, w) } where value(w, x) == 0 replacement { return x } }
   |                                                      ^~~~~~~~~~~
)--"},
    {"predicate argument that is not a name",
     "rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where uses(relu(x)) == 1 replacement { return conv2d(x, w, groups=$g, stride=$s) } }",
     false,
     R"--(test.rules:1:94: error: 'uses' expects the name of a pattern value
 1 | rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where uses(relu(x)) == 1 replacement { return conv2d(x, w, groups=$g, stride=$s) } }
   |                                                                                              ^~~~~~~
)--"},
    {"uses compared with a float",
     "rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where uses(c) == 1.5 replacement { return conv2d(x, w, groups=$g, stride=$s) } }",
     false,
     R"--(test.rules:1:100: error: 'uses(...)' must be compared with an integer
 1 | rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where uses(c) == 1.5 replacement { return conv2d(x, w, groups=$g, stride=$s) } }
   |                                                                                                    ^~~
)--"},
    {"unknown dtype",
     "rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where dtype(x) == f33 replacement { return conv2d(x, w, groups=$g, stride=$s) } }",
     false,
     R"--(test.rules:1:101: error: unknown dtype 'f33' (did you mean 'f32'?)
 1 | rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where dtype(x) == f33 replacement { return conv2d(x, w, groups=$g, stride=$s) } }
   |                                                                                                     ^~~
)--"},
    {"dtype with an ordering",
     "rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where dtype(x) < f32 replacement { return conv2d(x, w, groups=$g, stride=$s) } }",
     false,
     R"--(test.rules:1:98: error: 'dtype(...)' can only be compared with '==', '!=' or 'in'
 1 | rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where dtype(x) < f32 replacement { return conv2d(x, w, groups=$g, stride=$s) } }
   |                                                                                                  ^
)--"},
    {"shape compared with a number",
     "rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where shape(x) == 4 replacement { return conv2d(x, w, groups=$g, stride=$s) } }",
     false,
     R"--(test.rules:1:101: error: 'shape(...)' must be compared with a list of dims such as [N, C, _, _]
 1 | rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where shape(x) == 4 replacement { return conv2d(x, w, groups=$g, stride=$s) } }
   |                                                                                                     ^
)--"},
    {"ellipsis twice in a shape",
     "rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where shape(x) == [..., N, ...] replacement { return conv2d(x, w, groups=$g, stride=$s) } }",
     false,
     R"--(test.rules:1:110: error: '...' may appear only once in a shape
 1 | rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where shape(x) == [..., N, ...] replacement { return conv2d(x, w, groups=$g, stride=$s) } }
   |                                                                                                              ^~~
)--"},
    {"bad dim in a shape",
     "rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where shape(x) == [N, 1.5] replacement { return conv2d(x, w, groups=$g, stride=$s) } }",
     false,
     R"--(test.rules:1:105: error: a dim must be a non-negative integer, a symbol, '_' or '...'
 1 | rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where shape(x) == [N, 1.5] replacement { return conv2d(x, w, groups=$g, stride=$s) } }
   |                                                                                                         ^~~
)--"},
    {"dim index that is not a number",
     "rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where dim(x, w) == 1 replacement { return conv2d(x, w, groups=$g, stride=$s) } }",
     false,
     R"--(test.rules:1:96: error: the dim index of 'dim' must be an integer such as 1 or -1
 1 | rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where dim(x, w) == 1 replacement { return conv2d(x, w, groups=$g, stride=$s) } }
   |                                                                                                ^
)--"},
    {"attribute variable not compared",
     "rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where $g replacement { return conv2d(x, w, groups=$g, stride=$s) } }",
     false,
     R"--(test.rules:1:89: error: '$g' must be compared, as in '$g == 1'
 1 | rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where $g replacement { return conv2d(x, w, groups=$g, stride=$s) } }
   |                                                                                         ^~
)--"},
    {"ordering on a list attribute",
     "rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where $s < 2 replacement { return conv2d(x, w, groups=$g, stride=$s) } }",
     false,
     R"--(test.rules:1:92: error: '<' needs numbers, but '$s' holds int[2]
 1 | rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where $s < 2 replacement { return conv2d(x, w, groups=$g, stride=$s) } }
   |                                                                                            ^
)--"},
    {"attribute compared with the wrong type",
     "rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where $g == \"a\" replacement { return conv2d(x, w, groups=$g, stride=$s) } }",
     false,
     R"--(test.rules:1:95: error: cannot compare '$g' (int) with str 'a'
 1 | rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where $g == "a" replacement { return conv2d(x, w, groups=$g, stride=$s) } }
   |                                                                                               ^~~
)--"},
    {"unbound attribute variable in where",
     "rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where $q == 1 replacement { return conv2d(x, w, groups=$g, stride=$s) } }",
     false,
     R"--(test.rules:1:89: error: '$q' is not bound by the pattern (did you mean '$g'?)
 1 | rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where $q == 1 replacement { return conv2d(x, w, groups=$g, stride=$s) } }
   |                                                                                         ^~
)--"},
    {"condition that is not a predicate",
     "rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where x == 1 replacement { return conv2d(x, w, groups=$g, stride=$s) } }",
     false,
     R"--(test.rules:1:89: error: expected a predicate such as 'uses(y) == 1' or a comparison such as '$g == 1'
 1 | rule r { pattern(x, w) { c = conv2d(x, w, groups=$g, stride=$s); return relu(c) } where x == 1 replacement { return conv2d(x, w, groups=$g, stride=$s) } }
   |                                                                                         ^
)--"},
    {"duplicate rule",
     "rule r { pattern(x) { return relu(x) } replacement { return x } }\n"
     "rule r { pattern(x) { return relu(x) } replacement { return x } }",
     false,
     R"--(test.rules:2:6: error: duplicate rule 'r'
 2 | rule r { pattern(x) { return relu(x) } replacement { return x } }
   |      ^
test.rules:1:6: note: previous definition of 'r' is here
 1 | rule r { pattern(x) { return relu(x) } replacement { return x } }
   |      ^
)--"},
    {"duplicate benefit",
     "rule r { pattern(x) { return relu(x) } benefit 1 benefit 2 replacement { return x } }",
     false,
     R"--(test.rules:1:50: error: duplicate 'benefit' in rule 'r'
 1 | rule r { pattern(x) { return relu(x) } benefit 1 benefit 2 replacement { return x } }
   |                                                  ^~~~~~~~~
test.rules:1:40: note: first given here
 1 | rule r { pattern(x) { return relu(x) } benefit 1 benefit 2 replacement { return x } }
   |                                        ^~~~~~~~~
)--"},
    {"benefit that is not an integer",
     "rule r { pattern(x) { return relu(x) } benefit 2.5 replacement { return x } }",
     false,
     R"--(test.rules:1:48: error: benefit must be an integer from 0 to 1000000, got '2.5'
 1 | rule r { pattern(x) { return relu(x) } benefit 2.5 replacement { return x } }
   |                                                ^~~
)--"},
    {"'param' in a pattern",
     "rule r { pattern(x) { w = param f32[1]; return relu(x) } replacement { return x } }",
     false,
     R"--(test.rules:1:23: error: 'param' is only allowed in a test graph
 1 | rule r { pattern(x) { w = param f32[1]; return relu(x) } replacement { return x } }
   |                       ^~~~~~~~~~~~~~~~
)--"},
    {"duplicate phase",
     "rule r { pattern(x) { return relu(x) } replacement { return x } }\n"
     "phase p once { r }\n"
     "phase p once { r }",
     false,
     R"--(test.rules:3:7: error: duplicate phase 'p'
 3 | phase p once { r }
   |       ^
test.rules:2:7: note: previous definition of 'p' is here
 2 | phase p once { r }
   |       ^
)--"},
    {"unknown rule in a phase",
     "rule relu_id { pattern(x) { return relu(x) } replacement { return x } }\n"
     "phase p once { relu_ld }",
     false,
     R"--(test.rules:2:16: error: unknown rule 'relu_ld' in phase 'p' (did you mean 'relu_id'?)
 2 | phase p once { relu_ld }
   |                ^~~~~~~
)--"},
    {"zero iteration limit",
     "rule r { pattern(x) { return relu(x) } replacement { return x } }\n"
     "phase p fixpoint(max=0) { r }",
     false,
     R"--(test.rules:2:22: error: the iteration limit must be an integer from 1 to 1000000, got '0'
 2 | phase p fixpoint(max=0) { r }
   |                      ^
)--"},
    {"rule listed twice in a phase",
     "rule r { pattern(x) { return relu(x) } replacement { return x } }\n"
     "phase p once { r, r }",
     true,
     R"--(test.rules:2:19: warning: rule 'r' is listed twice in phase 'p'
 2 | phase p once { r, r }
   |                   ^
)--"},
    {"phase with the name of a rule",
     "rule r { pattern(x) { return relu(x) } replacement { return x } }\n"
     "phase r once { r }",
     false,
     R"--(test.rules:2:7: error: phase 'r' has the name of a rule
 2 | phase r once { r }
   |       ^
test.rules:1:6: note: the rule is defined here
 1 | rule r { pattern(x) { return relu(x) } replacement { return x } }
   |      ^
)--"},
    {"opclass with the name of an op",
     "opclass relu = add | mul",
     false,
     R"--(test.rules:1:9: error: opclass 'relu' has the name of an op
 1 | opclass relu = add | mul
   |         ^~~~
)--"},
    {"opclass with the name of an op class",
     "opclass activation = add | mul",
     false,
     R"--(test.rules:1:9: error: opclass 'activation' has the name of a built-in op class
 1 | opclass activation = add | mul
   |         ^~~~~~~~~~
)--"},
    {"opclass with an unknown op",
     "opclass act = relu | rellu",
     false,
     R"--(test.rules:1:22: error: unknown op 'rellu' (did you mean 'relu'?)
 1 | opclass act = relu | rellu
   |                      ^~~~~
)--"},
    {"duplicate opclass",
     "opclass act = relu\n"
     "opclass act = add",
     false,
     R"--(test.rules:2:9: error: duplicate opclass 'act'
 2 | opclass act = add
   |         ^~~
test.rules:1:9: note: previous definition of 'act' is here
 1 | opclass act = relu
   |         ^~~
)--"},
    {"test input with an unknown dtype",
     "test t { graph(x: f33[1]) { return relu(x) } expect count(relu) == 1 }",
     false,
     R"--(test.rules:1:19: error: unknown dtype 'f33' (did you mean 'f32'?)
 1 | test t { graph(x: f33[1]) { return relu(x) } expect count(relu) == 1 }
   |                   ^~~
)--"},
    {"test input with a symbolic dim",
     "test t { graph(x: f32[N, 3]) { return relu(x) } expect count(relu) == 1 }",
     false,
     R"--(test.rules:1:23: error: test shapes must be concrete, but 'N' is a symbol
 1 | test t { graph(x: f32[N, 3]) { return relu(x) } expect count(relu) == 1 }
   |                       ^
)--"},
    {"shape function rejecting a test graph",
     "test t { graph(x: f32[1, 3, 8, 8]) { w = param f32[4, 2, 3, 3]; return conv2d(x, w) } expect count(conv2d) == 1 }",
     false,
     R"--(test.rules:1:72: error: 'conv2d' rejects its inputs: input has 3 channels, weight [4, 2, 3, 3] with groups=1 expects 2
 1 | test t { graph(x: f32[1, 3, 8, 8]) { w = param f32[4, 2, 3, 3]; return conv2d(x, w) } expect count(conv2d) == 1 }
   |                                                                        ^~~~~~~~~~~~
)--"},
    {"rank mismatch caught by shape inference",
     "test t { graph(x: f32[1, 3, 8, 8]) { w = param f32[4, 3, 3]; return conv2d(x, w) } expect count(conv2d) == 1 }",
     false,
     R"--(test.rules:1:69: error: 'conv2d' rejects its inputs: weight has 3 dims, expected 4 (out_channels, in_channels/groups, kH, kW)
 1 | test t { graph(x: f32[1, 3, 8, 8]) { w = param f32[4, 3, 3]; return conv2d(x, w) } expect count(conv2d) == 1 }
   |                                                                     ^~~~~~~~~~~~
)--"},
    {"param with the wrong number of values",
     "test t { graph(x: f32[1, 3, 8, 8]) { c = param f32[8] = [1, 2, 3]; return mul(x, c) } expect count(mul) == 1 }",
     false,
     R"--(test.rules:1:57: error: 'c' has 8 elements but 3 values are given
 1 | test t { graph(x: f32[1, 3, 8, 8]) { c = param f32[8] = [1, 2, 3]; return mul(x, c) } expect count(mul) == 1 }
   |                                                         ^~~~~~~~~
)--"},
    {"positive param with values",
     "test t { graph(x: f32[1, 3, 8, 8]) { c = param f32[1] positive = [1]; return mul(x, c) } expect count(mul) == 1 }",
     false,
     R"--(test.rules:1:55: error: 'positive' applies to random params only; this one has values
 1 | test t { graph(x: f32[1, 3, 8, 8]) { c = param f32[1] positive = [1]; return mul(x, c) } expect count(mul) == 1 }
   |                                                       ^~~~~~~~
)--"},
    {"param values that are not numbers",
     "test t { graph(x: f32[1, 3, 8, 8]) { c = param f32[1] = [x]; return mul(x, c) } expect count(mul) == 1 }",
     false,
     R"--(test.rules:1:57: error: the values of a param must be a number or a flat list of numbers
 1 | test t { graph(x: f32[1, 3, 8, 8]) { c = param f32[1] = [x]; return mul(x, c) } expect count(mul) == 1 }
   |                                                         ^~~
)--"},
    {"a test param too large to allocate",
     "test t { graph(x: f32[2, 2]) { w = param f32[100000, 100000]; return relu(x) } expect count(relu) == 1 }",
     false,
     R"--(test.rules:1:42: error: float32[100000, 100000] brings the test's tensors (inputs, params and op results) to 37.3 GiB, more than the 1.0 GiB a test may use
 1 | test t { graph(x: f32[2, 2]) { w = param f32[100000, 100000]; return relu(x) } expect count(relu) == 1 }
   |                                          ^~~~~~~~~~~~~~~~~~~
)--"},
    {"test tensors that are small alone and too large together",
     "test t { graph(x: f32[1, 60000], y: f32[60000, 1]) { return relu(x + y) } expect count(relu) == 1 }",
     false,
     R"--(test.rules:1:66: error: float32[60000, 60000] brings the test's tensors (inputs, params and op results) to 13.4 GiB, more than the 1.0 GiB a test may use
 1 | test t { graph(x: f32[1, 60000], y: f32[60000, 1]) { return relu(x + y) } expect count(relu) == 1 }
   |                                                                  ^~~~~
)--"},
    {"unknown rule in apply",
     "rule relu_id { pattern(x) { return relu(x) } replacement { return x } }\n"
     "test t { graph(x: f32[1, 3, 8, 8]) { return relu(x) } apply relu_ld expect count(relu) == 0 }",
     false,
     R"--(test.rules:2:61: error: unknown rule or phase 'relu_ld' (did you mean 'relu_id'?)
 2 | test t { graph(x: f32[1, 3, 8, 8]) { return relu(x) } apply relu_ld expect count(relu) == 0 }
   |                                                             ^~~~~~~
)--"},
    {"unknown expectation",
     "test t { graph(x: f32[1, 3, 8, 8]) { return relu(x) } expect cout(relu) == 0 }",
     false,
     R"--(test.rules:1:62: error: unknown expectation 'cout' (did you mean 'count'?)
 1 | test t { graph(x: f32[1, 3, 8, 8]) { return relu(x) } expect cout(relu) == 0 }
   |                                                              ^~~~
)--"},
    {"count of an unknown op",
     "test t { graph(x: f32[1, 3, 8, 8]) { return relu(x) } expect count(rellu) == 0 }",
     false,
     R"--(test.rules:1:68: error: unknown op 'rellu' (did you mean 'relu'?)
 1 | test t { graph(x: f32[1, 3, 8, 8]) { return relu(x) } expect count(rellu) == 0 }
   |                                                                    ^~~~~
)--"},
    {"count not compared",
     "test t { graph(x: f32[1, 3, 8, 8]) { return relu(x) } expect count(relu) }",
     false,
     R"--(test.rules:1:62: error: 'count(...)' must be compared, as in 'count(relu) == 0'
 1 | test t { graph(x: f32[1, 3, 8, 8]) { return relu(x) } expect count(relu) }
   |                                                              ^~~~~~~~~~~
)--"},
    {"count compared with a negative number",
     "test t { graph(x: f32[1, 3, 8, 8]) { return relu(x) } expect count(relu) == -1 }",
     false,
     R"--(test.rules:1:77: error: 'count(...)' is compared with non-negative integers
 1 | test t { graph(x: f32[1, 3, 8, 8]) { return relu(x) } expect count(relu) == -1 }
   |                                                                             ^~
)--"},
    {"equivalent compared",
     "test t { graph(x: f32[1, 3, 8, 8]) { return relu(x) } expect equivalent() == 1 }",
     false,
     R"--(test.rules:1:75: error: 'equivalent(...)' cannot be compared
 1 | test t { graph(x: f32[1, 3, 8, 8]) { return relu(x) } expect equivalent() == 1 }
   |                                                                           ^~
)--"},
    {"equivalent with a positional option",
     "test t { graph(x: f32[1, 3, 8, 8]) { return relu(x) } expect equivalent(1e-4) }",
     false,
     R"--(test.rules:1:73: error: 'equivalent' takes named options: rtol=, atol= or trials=
 1 | test t { graph(x: f32[1, 3, 8, 8]) { return relu(x) } expect equivalent(1e-4) }
   |                                                                         ^~~~
)--"},
    {"negative tolerance in equivalent",
     "test t { graph(x: f32[1, 3, 8, 8]) { return relu(x) } expect equivalent(rtol=-1e-4) }",
     false,
     R"--(test.rules:1:78: error: 'rtol' must be a non-negative number, got '-1e-4'
 1 | test t { graph(x: f32[1, 3, 8, 8]) { return relu(x) } expect equivalent(rtol=-1e-4) }
   |                                                                              ^~~~~
)--"},
    {"unknown option of equivalent",
     "test t { graph(x: f32[1, 3, 8, 8]) { return relu(x) } expect equivalent(rtl=1e-4) }",
     false,
     R"--(test.rules:1:73: error: 'equivalent' has no option 'rtl' (did you mean 'rtol'?)
 1 | test t { graph(x: f32[1, 3, 8, 8]) { return relu(x) } expect equivalent(rtl=1e-4) }
   |                                                                         ^~~
)--"},
    {"zero trials",
     "test t { graph(x: f32[1, 3, 8, 8]) { return relu(x) } expect equivalent(trials=0) }",
     false,
     R"--(test.rules:1:80: error: 'trials' must be an integer from 1 to 1000, got '0'
 1 | test t { graph(x: f32[1, 3, 8, 8]) { return relu(x) } expect equivalent(trials=0) }
   |                                                                                ^
)--"},
    {"'not' in an expectation",
     "test t { graph(x: f32[1, 3, 8, 8]) { return relu(x) } expect not count(relu) == 1 }",
     false,
     R"--(test.rules:1:62: error: 'not' cannot be used in an expectation
 1 | test t { graph(x: f32[1, 3, 8, 8]) { return relu(x) } expect not count(relu) == 1 }
   |                                                              ^~~~~~~~~~~~~~~~~~~~
)--"},
    {"expected graph with inputs",
     "test t { graph(x: f32[1, 3, 8, 8]) { return relu(x) } expect graph(y: f32[1]) { return y } }",
     false,
     R"--(test.rules:1:68: error: an expected graph takes its inputs from the test graph; write 'graph { ... }'
 1 | test t { graph(x: f32[1, 3, 8, 8]) { return relu(x) } expect graph(y: f32[1]) { return y } }
   |                                                                    ^~~~~~~~~
test.rules:1:88: error: use of undeclared name 'y' (did you mean 'x'?)
 1 | test t { graph(x: f32[1, 3, 8, 8]) { return relu(x) } expect graph(y: f32[1]) { return y } }
   |                                                                                        ^
)--"},
    {"test without expectations",
     "test t { graph(x: f32[1, 3, 8, 8]) { return relu(x) }  }",
     true,
     R"--(test.rules:1:6: warning: test 't' has no expectations
 1 | test t { graph(x: f32[1, 3, 8, 8]) { return relu(x) }  }
   |      ^
)--"},
    {"attribute variable in a test graph",
     "test t { graph(x: f32[1, 3, 8, 8]) { return conv2d(x, x, groups=$g) } expect count(conv2d) == 1 }",
     false,
     R"--(test.rules:1:65: error: '$g' cannot be used in a test graph
 1 | test t { graph(x: f32[1, 3, 8, 8]) { return conv2d(x, x, groups=$g) } expect count(conv2d) == 1 }
   |                                                                 ^~
)--"},
    {"'_' in a test graph",
     "test t { graph(x: f32[1, 3, 8, 8]) { return relu(_) } expect count(relu) == 1 }",
     false,
     R"--(test.rules:1:50: error: '_' can only be used in a pattern
 1 | test t { graph(x: f32[1, 3, 8, 8]) { return relu(_) } expect count(relu) == 1 }
   |                                                  ^
)--"},
    {"duplicate test",
     "test t { graph(x: f32[1, 3, 8, 8]) { return relu(x) } expect count(relu) == 1 }\n"
     "test t { graph(x: f32[1, 3, 8, 8]) { return relu(x) } expect count(relu) == 1 }",
     false,
     R"--(test.rules:2:6: error: duplicate test 't'
 2 | test t { graph(x: f32[1, 3, 8, 8]) { return relu(x) } expect count(relu) == 1 }
   |      ^
test.rules:1:6: note: previous definition of 't' is here
 1 | test t { graph(x: f32[1, 3, 8, 8]) { return relu(x) } expect count(relu) == 1 }
   |      ^
)--"},
    {"name used in an expected graph that only the test graph defines",
     "test t { graph(x: f32[1, 3, 8, 8]) { y = relu(x); return y } expect graph { return relu(y) } }",
     false,
     R"--(test.rules:1:89: error: use of undeclared name 'y' (did you mean 'x'?)
 1 | test t { graph(x: f32[1, 3, 8, 8]) { y = relu(x); return y } expect graph { return relu(y) } }
   |                                                                                         ^
)--"},
    {"a dim symbol no where condition binds, in a replacement attribute",
     "rule r { pattern(x) { return layer_norm(x, [4]) } where dim(x, 0) == N replacement { return layer_norm(x, [D]) } }",
     false,
     R"--(test.rules:1:108: error: 'D' is not a dim symbol of a where condition (bind it with, e.g., dim(x, -1) == D) (did you mean 'N'?)
 1 | rule r { pattern(x) { return layer_norm(x, [4]) } where dim(x, 0) == N replacement { return layer_norm(x, [D]) } }
   |                                                                                                            ^
)--"},
    {"a dim symbol for a float attribute",
     "rule r { pattern(x) { return relu(x) } where dim(x, -1) == D replacement { return layer_norm(x, [D], eps=D) } }",
     false,
     R"--(test.rules:1:106: error: 'eps' of 'layer_norm' is float, but a dim symbol is an int
 1 | rule r { pattern(x) { return relu(x) } where dim(x, -1) == D replacement { return layer_norm(x, [D], eps=D) } }
   |                                                                                                          ^
)--"},
    {"a negated condition binds no dim symbol; list items must be ints",
     "rule r { pattern(x) { return relu(x) } where not dim(x, -1) == D replacement { return layer_norm(x, [D, 1.5]) } }",
     false,
     R"--(test.rules:1:102: error: 'D' is not a dim symbol of a where condition (bind it with, e.g., dim(x, -1) == D)
 1 | rule r { pattern(x) { return relu(x) } where not dim(x, -1) == D replacement { return layer_norm(x, [D, 1.5]) } }
   |                                                                                                      ^
test.rules:1:105: error: the items of 'normalized_shape' of 'layer_norm' must be integers or dim symbols
 1 | rule r { pattern(x) { return relu(x) } where not dim(x, -1) == D replacement { return layer_norm(x, [D, 1.5]) } }
   |                                                                                                         ^~~
)--"},
    {"'op_name' as an operand",
     "rule r { pattern(x) { a = (relu | tanh)(x); return a } replacement { return relu(op_name(a)) } }",
     false,
     R"--(test.rules:1:82: error: 'op_name' is only allowed as the value of a 'str' attribute in a replacement, as in 'activation=op_name(act)'
 1 | rule r { pattern(x) { a = (relu | tanh)(x); return a } replacement { return relu(op_name(a)) } }
   |                                                                                  ^~~~~~~
)--"},
    {"'op_name' as a pattern attribute",
     "rule r { pattern(x) { a = (relu | tanh)(x); return gelu(a, approximate=op_name(a)) } replacement { return x } }",
     false,
     R"--(test.rules:1:72: error: 'op_name' is only allowed as the value of a 'str' attribute in a replacement, as in 'activation=op_name(act)'
 1 | rule r { pattern(x) { a = (relu | tanh)(x); return gelu(a, approximate=op_name(a)) } replacement { return x } }
   |                                                                        ^~~~~~~
)--"},
    {"'op_name' in a where condition",
     "rule r { pattern(x) { a = (relu | tanh)(x); return a } where op_name(a) == \"relu\" replacement { return x } }",
     false,
     R"--(test.rules:1:62: error: 'op_name' is only allowed as the value of a 'str' attribute in a replacement, as in 'activation=op_name(act)'
 1 | rule r { pattern(x) { a = (relu | tanh)(x); return a } where op_name(a) == "relu" replacement { return x } }
   |                                                              ^~~~~~~
)--"},
    {"'op_name' in a test graph",
     "test t { graph(x: f32[1]) { return relu(op_name(x)) } expect count(relu) == 1 }",
     false,
     R"--(test.rules:1:41: error: 'op_name' is only allowed as the value of a 'str' attribute in a replacement, as in 'activation=op_name(act)'
 1 | test t { graph(x: f32[1]) { return relu(op_name(x)) } expect count(relu) == 1 }
   |                                         ^~~~~~~
)--"},
    {"'op_name' for an attribute that is not a str",
     "rule r { pattern(x, w) { c = conv2d(x, w); a = (relu | tanh)(c); return a } replacement { return conv2d_post(x, w, stride=op_name(a)) } }",
     false,
     R"--(test.rules:1:123: error: 'op_name' gives the name of the op that matched, a str, but 'stride' of 'conv2d_post' is int[2]
 1 | rule r { pattern(x, w) { c = conv2d(x, w); a = (relu | tanh)(c); return a } replacement { return conv2d_post(x, w, stride=op_name(a)) } }
   |                                                                                                                           ^~~~~~~~~~
)--"},
    {"'op_name' with two arguments",
     "rule r { pattern(x, w) { y = linear(x, w); a = (relu | tanh)(y); return a } replacement { return linear_post(x, w, activation=op_name(a, y)) } }",
     false,
     R"--(test.rules:1:127: error: 'op_name' takes one value of the pattern, as in 'op_name(act)'
 1 | rule r { pattern(x, w) { y = linear(x, w); a = (relu | tanh)(y); return a } replacement { return linear_post(x, w, activation=op_name(a, y)) } }
   |                                                                                                                               ^~~~~~~~~~~~~
)--"},
    {"'op_name' of a pattern parameter",
     "rule r { pattern(x, w) { y = linear(x, w); a = (relu | tanh)(y); return a } replacement { return linear_post(x, w, activation=op_name(w)) } }",
     false,
     R"--(test.rules:1:135: error: 'w' is a pattern parameter; 'op_name' needs a value the pattern matches with op alternatives or an op class, as in 'act = (relu | tanh)(x)'
 1 | rule r { pattern(x, w) { y = linear(x, w); a = (relu | tanh)(y); return a } replacement { return linear_post(x, w, activation=op_name(w)) } }
   |                                                                                                                                       ^
)--"},
    {"'op_name' of a replacement value",
     "rule r { pattern(x, w) { y = linear(x, w); a = (relu | tanh)(y); return a } replacement { z = relu(x); return linear_post(z, w, activation=op_name(z)) } }",
     false,
     R"--(test.rules:1:148: error: 'z' is computed by the replacement; 'op_name' needs a value the pattern matches with op alternatives or an op class, as in 'act = (relu | tanh)(x)'
 1 | rule r { pattern(x, w) { y = linear(x, w); a = (relu | tanh)(y); return a } replacement { z = relu(x); return linear_post(z, w, activation=op_name(z)) } }
   |                                                                                                                                                    ^
)--"},
    {"'op_name' of a value that matches one op",
     "rule r { pattern(x, w) { y = linear(x, w); a = relu(y); return a } replacement { return linear_post(x, w, activation=op_name(a)) } }",
     false,
     R"--(test.rules:1:126: error: 'a' always matches 'relu': write "relu" instead of 'op_name(a)'
 1 | rule r { pattern(x, w) { y = linear(x, w); a = relu(y); return a } replacement { return linear_post(x, w, activation=op_name(a)) } }
   |                                                                                                                              ^
test.rules:1:48: note: 'a' is matched here
 1 | rule r { pattern(x, w) { y = linear(x, w); a = relu(y); return a } replacement { return linear_post(x, w, activation=op_name(a)) } }
   |                                                ^~~~~~~
)--"},
    {"'op_name' of alternatives the attribute does not accept",
     "rule r { pattern(x, w) { y = linear(x, w); a = (relu | abs | exp)(y); return a } replacement { return linear_post(x, w, activation=op_name(a)) } }",
     false,
     R"--(test.rules:1:132: error: 'activation' of 'linear_post' does not accept 'abs' or 'exp', which 'a' may match (it accepts 'none', 'relu', 'leaky_relu', 'relu6', 'hardtanh', 'clamp', 'elu', 'hardswish', 'hardsigmoid', 'silu', 'sigmoid', 'tanh', 'gelu', 'gelu_tanh')
 1 | rule r { pattern(x, w) { y = linear(x, w); a = (relu | abs | exp)(y); return a } replacement { return linear_post(x, w, activation=op_name(a)) } }
   |                                                                                                                                    ^~~~~~~~~~
test.rules:1:49: note: 'a' is matched here
 1 | rule r { pattern(x, w) { y = linear(x, w); a = (relu | abs | exp)(y); return a } replacement { return linear_post(x, w, activation=op_name(a)) } }
   |                                                 ^~~~~~~~~~~~~~~~
)--"},
    {"'op_name' of alternatives with an attribute the pattern leaves unmatched",
     "rule r { pattern(x, w) { y = linear(x, w); a = (relu | gelu)(y); return a } replacement { return linear_post(x, w, activation=op_name(a)) } }",
     false,
     R"--(test.rules:1:127: error: the pattern leaves 'approximate' of 'gelu' unmatched, and 'op_name(a)' carries only the op's name (match it in the call, or give 'gelu' a rule of its own)
 1 | rule r { pattern(x, w) { y = linear(x, w); a = (relu | gelu)(y); return a } replacement { return linear_post(x, w, activation=op_name(a)) } }
   |                                                                                                                               ^~~~~~~~~~
test.rules:1:49: note: 'a' is matched here
 1 | rule r { pattern(x, w) { y = linear(x, w); a = (relu | gelu)(y); return a } replacement { return linear_post(x, w, activation=op_name(a)) } }
   |                                                 ^~~~~~~~~~~
)--"},
    {"'op_name' of an op class whose ops have attributes the pattern leaves unmatched",
     "opclass acts = relu | gelu | hardtanh\n"
     "rule r { pattern(x, w) { y = linear(x, w); a = acts(y); return a } replacement { return linear_post(x, w, activation=op_name(a)) } }",
     false,
     R"--(test.rules:2:118: error: the pattern leaves 'approximate' of 'gelu' and 'min_val', 'max_val' of 'hardtanh' unmatched, and 'op_name(a)' carries only the op's name (match them in the call, or give those ops a rule of their own)
 2 | rule r { pattern(x, w) { y = linear(x, w); a = acts(y); return a } replacement { return linear_post(x, w, activation=op_name(a)) } }
   |                                                                                                                      ^~~~~~~~~~
test.rules:2:48: note: 'a' is matched here
 2 | rule r { pattern(x, w) { y = linear(x, w); a = acts(y); return a } replacement { return linear_post(x, w, activation=op_name(a)) } }
   |                                                ^~~~
)--"},
    {"a str attribute outside its op's choices",
     "rule r { pattern(x, w) { return linear(x, w) } replacement { return linear_post(x, w, activation=\"rellu\") } }",
     false,
     R"--(test.rules:1:98: error: bad value for 'activation' of 'linear_post': expected one of 'none', 'relu', 'leaky_relu', 'relu6', 'hardtanh', 'clamp', 'elu', 'hardswish', 'hardsigmoid', 'silu', 'sigmoid', 'tanh', 'gelu', 'gelu_tanh', got str 'rellu' (did you mean 'relu'?)
 1 | rule r { pattern(x, w) { return linear(x, w) } replacement { return linear_post(x, w, activation="rellu") } }
   |                                                                                                  ^~~~~~~
)--"},
    {"a call as a str attribute of a replacement",
     "rule r { pattern(x, w) { return linear(x, w) } replacement { return linear_post(x, w, activation=relu(x)) } }",
     false,
     R"--(test.rules:1:98: error: 'activation' of 'linear_post' is an attribute: expected a literal, a '$' variable or 'op_name(...)'
 1 | rule r { pattern(x, w) { return linear(x, w) } replacement { return linear_post(x, w, activation=relu(x)) } }
   |                                                                                                  ^~~~~~~
)--"},
    {"a float item in an int list attribute",
     "rule r { pattern(x) { return max_pool2d(x, kernel_size=[$k, 1.5]) } where $k > 1 replacement { return x } }",
     false,
     R"--(test.rules:1:61: error: the items of 'kernel_size' of 'max_pool2d' are ints, got '1.5'
 1 | rule r { pattern(x) { return max_pool2d(x, kernel_size=[$k, 1.5]) } where $k > 1 replacement { return x } }
   |                                                             ^~~
)--"},
    {"a list with '$' items of the wrong length",
     "rule r { pattern(x) { return max_pool2d(x, kernel_size=[$k, $k, $k]) } replacement { return x } }",
     false,
     R"--(test.rules:1:56: error: 'kernel_size' of 'max_pool2d' has 2 items, not 3
 1 | rule r { pattern(x) { return max_pool2d(x, kernel_size=[$k, $k, $k]) } replacement { return x } }
   |                                                        ^~~~~~~~~~~~
)--"},
    {"'_' as a list item of a replacement",
     "rule r { pattern(x) { return relu(max_pool2d(x, kernel_size=[$k, $k])) } replacement { return max_pool2d(x, kernel_size=[$k, _]) } }",
     false,
     R"--(test.rules:1:126: error: '_' can only be used in a pattern
 1 | rule r { pattern(x) { return relu(max_pool2d(x, kernel_size=[$k, $k])) } replacement { return max_pool2d(x, kernel_size=[$k, _]) } }
   |                                                                                                                              ^
)--"},
    {"a scalar operand's variable as an int list item of a replacement",
     "rule r { pattern(x) { return relu(x * $c) } replacement { return max_pool2d(x, kernel_size=[$c, 2]) } }",
     false,
     R"--(test.rules:1:93: error: '$c' is bound to a scalar operand, which may be a float: it cannot be an item of 'kernel_size' of 'max_pool2d' (ints)
 1 | rule r { pattern(x) { return relu(x * $c) } replacement { return max_pool2d(x, kernel_size=[$c, 2]) } }
   |                                                                                             ^~
)--"},

};
// clang-format on

}  // namespace

TEST_CASE("sema reports each problem with its message, position and notes", "[dsl][sema]") {
  const SemaCase& c = GENERATE(from_range(std::begin(kSemaCases), std::end(kSemaCases)));
  INFO("case: " << c.name);
  graft::testing::LoadedRules loaded = load_rules(c.input);
  CHECK(loaded.diagnostics == c.expected);
  CHECK(loaded.set.has_value() == c.loads);
}
