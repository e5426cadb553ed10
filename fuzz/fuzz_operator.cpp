// Fuzz target: the operator language (.loop), as `marvel check` reads it: parse, then the
// conformability analysis and the cost model's view of a perfect nest.
#include "core/conform/conformability.h"
#include "core/cost/problem.h"
#include "core/ir/parser.h"
#include "fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace marvel;
    try {
        const ir::Operator op = ir::parseOperator(fuzz::asText(data, size), "fuzz.loop");
        const conform::Report report = conform::checkConformability(op);
        if (report.conformable && ir::perfectNest(op)) (void)cost::fromOperator(op);
    } catch (const InputError&) { }
    return 0;
}
