#include "engine/support/edit_distance.h"

#include <catch2/catch.hpp>

using graft::closest_match;
using graft::did_you_mean;
using graft::edit_distance;

TEST_CASE("edit distance counts insertions, deletions and substitutions", "[support]") {
  CHECK(edit_distance("conv2d", "conv2d") == 0);
  CHECK(edit_distance("conv2", "conv2d") == 1);
  CHECK(edit_distance("cnv2d", "conv2d") == 1);
  CHECK(edit_distance("conv3d", "conv2d") == 1);
  CHECK(edit_distance("", "relu") == 4);
  CHECK(edit_distance("kitten", "sitting") == 3);
}

TEST_CASE("edit distance stops early past the limit", "[support]") {
  CHECK(edit_distance("abcdefgh", "zzzzzzzz", 2) == 3);
}

TEST_CASE("did you mean suggests only plausible typos", "[support]") {
  std::vector<std::string> ops = {"conv2d", "relu", "relu6", "batch_norm", "linear"};
  CHECK(closest_match("conv2", ops) == "conv2d");
  CHECK(closest_match("batchnorm", ops) == "batch_norm");
  CHECK(closest_match("softmax", ops).empty());
  CHECK(did_you_mean("lineer", ops) == " (did you mean 'linear'?)");
  CHECK(did_you_mean("zzz", ops).empty());
}
