#include "core/workloads/transformer.h"

#include <cstdio>

#include "core/ir/parser.h"
#include "core/search/roofline.h"

namespace marvel::workloads {

namespace {

std::string number(double v)
{
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", v);
    return text;
}

WorkloadLayer fromText(const std::string& name, LayerKind kind, const std::string& text)
{
    WorkloadLayer l;
    l.name = name;
    l.kind = kind;
    l.op = ir::parseOperator(text, name);
    return l;
}

/// A two-level nest over R x C (`inner` the column loop's size name) with one statement.
std::string rowsText(const std::string& op, std::int64_t rows, const char* inner, std::int64_t cols,
    const std::string& statement)
{
    const std::string c = inner;
    std::string lower = c;
    for (char& ch : lower)
        ch = char(ch - 'A' + 'a');
    return "operator " + op + "(R = " + std::to_string(rows) + ", " + c + " = " + std::to_string(cols)
        + ") {\n  for (r = 0; r < R; r++)\n    for (" + lower + " = 0; " + lower + " < " + c + "; " + lower
        + "++)\n      " + statement + "\n}\n";
}

/// A one-level nest over the R rows with one statement (a per-row statistic).
std::string perRowText(const std::string& op, std::int64_t rows, const std::string& statement)
{
    return "operator " + op + "(R = " + std::to_string(rows) + ") {\n  for (r = 0; r < R; r++)\n    "
        + statement + "\n}\n";
}

WorkloadLayer elementwise(const std::string& name, LayerKind kind, const std::string& op, std::int64_t rows,
    std::int64_t cols, const std::string& statement)
{
    return fromText(name, kind, rowsText(op, rows, "C", cols, statement));
}

} // namespace

WorkloadLayer attentionLayer(
    const std::string& name, std::int64_t M, std::int64_t N, std::int64_t K, std::int64_t batch)
{
    WorkloadLayer l = gemmLayer(name, M, N, K);
    l.kind = LayerKind::Attention;
    l.repeat = int(batch);
    l.op = ir::parseOperator("operator attention(M = " + std::to_string(M) + ", N = " + std::to_string(N)
            + ", K = " + std::to_string(K)
            + ") {\n  for (m = 0; m < M; m++)\n    for (n = 0; n < N; n++)\n      for (k = 0; k < K; k++)\n"
              "        C[m][n] += A[m][k] * B[k][n];\n}\n",
        name);
    return l;
}

std::vector<WorkloadLayer> softmaxLayers(const std::string& name, std::int64_t rows, std::int64_t cols)
{
    const LayerKind k = LayerKind::Softmax;
    return {
        fromText(name + ".max", k, rowsText("softmax_max", rows, "L", cols, "M[r] = max(M[r], X[r][l]);")),
        fromText(
            name + ".exp", k, rowsText("softmax_exp", rows, "L", cols, "E[r][l] = exp(X[r][l] - M[r]);")),
        fromText(name + ".sum", k, rowsText("softmax_sum", rows, "L", cols, "S[r] += E[r][l];")),
        fromText(name + ".div", k, rowsText("softmax_div", rows, "L", cols, "Y[r][l] = E[r][l] / S[r];"))};
}

std::vector<WorkloadLayer> layerNormLayers(const std::string& name, std::int64_t rows, std::int64_t width)
{
    const LayerKind k = LayerKind::Norm;
    const double c = 1.0 / double(width);
    return {fromText(name + ".sum", k, rowsText("layernorm_sum", rows, "D", width, "S[r] += X[r][d];")),
        fromText(
            name + ".sumsq", k, rowsText("layernorm_sumsq", rows, "D", width, "Q[r] += X[r][d] * X[r][d];")),
        fromText(name + ".rstd", k,
            perRowText("layernorm_rstd", rows,
                "V[r] = rsqrt(Q[r] * " + number(c) + " - S[r] * S[r] * " + number(c * c) + " + 0.00001);")),
        fromText(name + ".normalize", k,
            rowsText("layernorm_normalize", rows, "D", width,
                "Y[r][d] = (X[r][d] - S[r] * " + number(c) + ") * V[r] * G[d] + B[d];"))};
}

std::vector<WorkloadLayer> rmsNormLayers(const std::string& name, std::int64_t rows, std::int64_t width)
{
    const LayerKind k = LayerKind::Norm;
    return {fromText(name + ".sumsq", k,
                rowsText("rmsnorm_sumsq", rows, "D", width, "Q[r] += X[r][d] * X[r][d];")),
        fromText(name + ".rstd", k,
            perRowText(
                "rmsnorm_rstd", rows, "V[r] = rsqrt(Q[r] * " + number(1.0 / double(width)) + " + 0.00001);")),
        fromText(name + ".normalize", k,
            rowsText("rmsnorm_normalize", rows, "D", width, "Y[r][d] = X[r][d] * V[r] * G[d];"))};
}

WorkloadLayer geluLayer(const std::string& name, std::int64_t rows, std::int64_t cols)
{
    return elementwise(name, LayerKind::Activation, "gelu", rows, cols,
        "Y[r][c] = X[r][c] * 0.5 * (1 + erf(X[r][c] * 0.7071067811865476));");
}

WorkloadLayer siluLayer(const std::string& name, std::int64_t rows, std::int64_t cols)
{
    return elementwise(
        name, LayerKind::Activation, "silu", rows, cols, "Y[r][c] = X[r][c] * sigmoid(X[r][c]);");
}

WorkloadLayer swigluGateLayer(const std::string& name, std::int64_t rows, std::int64_t cols)
{
    return elementwise(name, LayerKind::Activation, "swiglu_gate", rows, cols,
        "Y[r][c] = G[r][c] * sigmoid(G[r][c]) * U[r][c];");
}

WorkloadLayer reluLayer(const std::string& name, std::int64_t rows, std::int64_t cols)
{
    return elementwise(name, LayerKind::Activation, "relu", rows, cols, "Y[r][c] = max(X[r][c], 0);");
}

WorkloadLayer addLayer(const std::string& name, std::int64_t rows, std::int64_t cols)
{
    return elementwise(name, LayerKind::Elementwise, "add", rows, cols, "Y[r][c] = A[r][c] + B[r][c];");
}

WorkloadLayer mulLayer(const std::string& name, std::int64_t rows, std::int64_t cols)
{
    return elementwise(name, LayerKind::Elementwise, "mul", rows, cols, "Y[r][c] = A[r][c] * B[r][c];");
}

std::int64_t elementOps(const WorkloadLayer& layer)
{
    return elementOps(layer.op);
}

std::int64_t elementOps(const ir::Operator& op)
{
    auto nest = ir::perfectNest(op);
    if (!nest) return 0;
    std::int64_t perInstance = 0;
    for (const ir::Statement& s : nest->statements)
        perInstance += s.operations();
    return search::iterationCount(*nest, op.sizes) * perInstance;
}

} // namespace marvel::workloads
