// The static-link trap: registrations live in static objects that the linker
// drops unless the library is linked whole. This binary links it whole and
// checks that every calculator of calculators/core is registered.
#include <string>

#include "framework/calculator_registry.h"
#include "framework/tool/subgraph_registry.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

TEST(CoreCalculatorsRegistrationTest, EveryCalculatorIsRegistered) {
  const char* kNames[] = {
      "PassThroughCalculator",
      "FlowLimiterCalculator",
      "GateCalculator",
      "PreviousLoopbackCalculator",
      "ConstantSidePacketCalculator",
      "SidePacketToStreamCalculator",
      "PacketClonerCalculator",
      "DefaultSidePacketCalculator",
      "MakePairCalculator",
      "SinkCalculator",
      "MergeCalculator",
      "PacketPresenceCalculator",
      "SwitchDemuxCalculator",
      "SwitchMuxCalculator",
      "ConcatenateFloatVectorCalculator",
      "ConcatenateInt32VectorCalculator",
      "ConcatenateUInt64VectorCalculator",
      "ConcatenateBoolVectorCalculator",
      "ConcatenateStringVectorCalculator",
      "SplitFloatVectorCalculator",
      "SplitUint64tVectorCalculator",
      "SplitIntVectorCalculator",
      "BeginLoopIntCalculator",
      "BeginLoopUint64tCalculator",
      "BeginLoopFloatCalculator",
      "BeginLoopStringCalculator",
      "EndLoopBooleanCalculator",
      "EndLoopFloatCalculator",
      "EndLoopIntCalculator",
      "EndLoopStringCalculator",
      // Test calculators of the seed graphs.
      "GlobalCountSourceCalculator",
      "IntAdderCalculator",
      "UnitDelayCalculator",
  };
  for (const char* name : kNames) {
    EXPECT_TRUE(CalculatorRegistry::Get().IsRegistered(name)) << name << " is not registered";
  }
  EXPECT_TRUE(CalculatorRegistry::Get().DuplicateNames().empty());
  // Kept by the demux/mux, which reference its library.
  EXPECT_TRUE(SubgraphRegistry::Get().IsRegistered("SwitchContainer"));
}

}  // namespace
}  // namespace sluice
