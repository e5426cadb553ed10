#pragma once
// The built-in transformer models (issue 35): BERT-base, GPT-2 small and Llama-style decoders, built from
// the layers of transformer.h for a SequenceOptions: prefill, S = T = seqLen query and attended tokens per
// sequence; decode, one new token (S = 1) attending to T = kvLen cached tokens. Embedding lookups (token and
// position tables) are table reads, not compute, and are left out, as are dropout (inference) and Llama's
// rotary position embedding; the attention products count the whole S x T score matrix (a causal mask does
// not skip work).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/workloads/workloads.h"

namespace marvel::workloads {

/// A transformer's shapes: `blocks` identical blocks of width `width` with `heads` query heads and
/// `kvHeads` key/value heads (grouped-query attention when fewer), feed-forward width `ffn`.
struct TransformerConfig
{
    enum class Family {
        Bert, ///< encoder, post-LN (LayerNorm after each residual add), GELU FFN, separate q, k, v
        Gpt2, ///< decoder, pre-LN (ln_1, ln_2, final ln_f), GELU FFN, fused QKV (c_attn), LM head
        Llama, ///< decoder, RMSNorm before attention and FFN and a final one, SwiGLU FFN, LM head
    };
    std::string name;
    Family family = Family::Gpt2;
    int blocks = 1;
    std::int64_t width = 0, heads = 1, kvHeads = 1, ffn = 0;
    std::int64_t vocab = 0; ///< the LM head's outputs (decoders)
    std::int64_t defaultSeqLen = 0; ///< prefill's seqLen and decode's kvLen when not given
    bool wholeModel = true; ///< false: one block alone (no final norm, no LM head)
};

/// The configurations builtinWorkload() knows, by lower-case name.
std::vector<TransformerConfig> builtinTransformerConfigs();
/// The configuration of a built-in transformer name (case-insensitive), or nullopt.
std::optional<TransformerConfig> findTransformerConfig(std::string_view name);

/// The model's layers, identical layers merged with repeats (mergeRepeats). Throws InputError naming the
/// option for a seqLen, batch or kvLen that is not positive or makes a dimension too large, kvLen with
/// prefill, and decode on an encoder.
Workload transformerWorkload(const TransformerConfig& config, const SequenceOptions& sequence = {});

} // namespace marvel::workloads
