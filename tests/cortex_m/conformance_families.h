// The CMSIS-NN operator families the conformance suite checks, keyed by the upstream unit-test
// name that INDEX.tsv lists for each vector folder (the folder names themselves are never
// interpreted). Each runner computes the vector with every path of the kernel (optimized with
// two threads and scratch, portable without scratch, and the reference oracle where there is
// one) and returns "" when all match the expected output bit for bit.
#pragma once

#include <string>

#include "cortex_m/vector_access.h"

namespace vkrt::testing::cmsis {

using FamilyRunner = std::string (*)(VectorAccess& v);

struct Family {
  const char* unit_test;  // e.g. "test_arm_convolve_s8"
  const char* name;       // family label in reports
  FamilyRunner run;       // null: known family that this suite does not check (reported)
};

// Null when the unit test is not one of the int8/int16 families of the cortex_m operators.
const Family* family_for_unit_test(const std::string& unit_test);

}  // namespace vkrt::testing::cmsis
