#include "core/workloads/gamma_cases.h"

#include "core/workloads/workloads.h"

namespace marvel::workloads {

std::string GammaCase::loopText() const
{
    return kind == Kind::Depthwise ? depthwiseLoopText(C, Y, X, R, S, 1, 1)
                                   : conv2dLoopText(K, C, Y, X, R, S, 1, 1);
}

const std::vector<GammaCase>& gammaCases()
{
    using Kind = GammaCase::Kind;
    // GAMMA 3d6caf8 over MAESTRO e1d8efd, 2026-11-27: latency objective, population 20, 60 generations
    // (815-1263 evaluations a run, 20-145 s), seeds 1 and 2, capacity constraints of L1 512 B and L2
    // 110,592 B, NoC 12 (P1) or 128 (P2) elements a cycle. Issue 22's 18 cases, then issue 33's 16.
    static const std::vector<GammaCase> cases = {
        {"01_P1", "ResNet50 1x1 K64 C64 56x56", Kind::Conv, 64, 64, 56, 56, 1, 1, "P1_eyeriss", 168, 82990,
            82012},
        {"01_P2", "ResNet50 1x1 K64 C64 56x56", Kind::Conv, 64, 64, 56, 56, 1, 1, "P2_edge", 1024, 14636,
            14454},
        {"02_P1", "VGG16 CONV1_2-shape K64 C64 222x222 3x3", Kind::Conv, 64, 64, 222, 222, 3, 3, "P1_eyeriss",
            168, 12281682, 11257293},
        {"02_P2", "VGG16 CONV1_2-shape K64 C64 222x222 3x3", Kind::Conv, 64, 64, 222, 222, 3, 3, "P2_edge",
            1024, 2076691, 2070547},
        {"03_P1", "depthwise 3x3 C32 110x110", Kind::Depthwise, 1, 32, 110, 110, 3, 3, "P1_eyeriss", 168,
            33832, 33803},
        {"03_P2", "depthwise 3x3 C32 110x110", Kind::Depthwise, 1, 32, 110, 110, 3, 3, "P2_edge", 1024, 4172,
            4172},
        {"04_P1", "depthwise 3x3 C384 12x12", Kind::Depthwise, 1, 384, 12, 12, 3, 3, "P1_eyeriss", 168, 6996,
            6574},
        {"04_P2", "depthwise 3x3 C384 12x12", Kind::Depthwise, 1, 384, 12, 12, 3, 3, "P2_edge", 1024, 725,
            688},
        {"05_P1", "ResNet50 3x3 K64 C64 54x54 (no pad)", Kind::Conv, 64, 64, 54, 54, 3, 3, "P1_eyeriss", 168,
            752802, 684709},
        {"05_P2", "ResNet50 3x3 K64 C64 54x54 (no pad)", Kind::Conv, 64, 64, 54, 54, 3, 3, "P2_edge", 1024,
            157747, 124674},
        {"06_P1", "AlexNet CONV3 K384 C256 13x13 3x3", Kind::Conv, 384, 256, 13, 13, 3, 3, "P1_eyeriss", 168,
            1586514, 960889},
        {"06_P2", "AlexNet CONV3 K384 C256 13x13 3x3", Kind::Conv, 384, 256, 13, 13, 3, 3, "P2_edge", 1024,
            164658, 158520},
        {"07_P1", "VGG16 CONV4_3-like K512 C512 28x28 3x3", Kind::Conv, 512, 512, 28, 28, 3, 3, "P1_eyeriss",
            168, 12951090, 11637597},
        {"07_P2", "VGG16 CONV4_3-like K512 C512 28x28 3x3", Kind::Conv, 512, 512, 28, 28, 3, 3, "P2_edge",
            1024, 1943289, 1820709},
        {"08_P1", "ResNet50 1x1 K256 C64 56x56", Kind::Conv, 256, 64, 56, 56, 1, 1, "P1_eyeriss", 168, 403008,
            318608},
        {"08_P2", "ResNet50 1x1 K256 C64 56x56", Kind::Conv, 256, 64, 56, 56, 1, 1, "P2_edge", 1024, 50362,
            50362},
        {"09_P1", "MobileNetV2 pw K144 C24 56x56", Kind::Conv, 144, 24, 56, 56, 1, 1, "P1_eyeriss", 168,
            75884, 65002},
        {"10_P2", "VGG16 CONV5_1 K512 C512 14x14 3x3", Kind::Conv, 512, 512, 14, 14, 3, 3, "P2_edge", 1024,
            517140, 453669},
        {"11_P2_96", "AlexNet CONV2 K256 C96 27x27 5x5", Kind::Conv, 256, 96, 27, 27, 5, 5, "P2_edge", 96,
            4665900, 4665900},
        {"11_P2_200", "AlexNet CONV2 K256 C96 27x27 5x5", Kind::Conv, 256, 96, 27, 27, 5, 5, "P2_edge", 200,
            2552674, 2552236},
        {"12_P2_384", "MobileNetV2 pw K96 C24 56x56", Kind::Conv, 96, 24, 56, 56, 1, 1, "P2_edge", 384, 21667,
            21562},
        {"12_P2_2048", "MobileNetV2 pw K96 C24 56x56", Kind::Conv, 96, 24, 56, 56, 1, 1, "P2_edge", 2048,
            6395, 6338},
        {"13_P2_96", "MobileNetV2 dw 3x3 C144 56x56", Kind::Depthwise, 1, 144, 56, 56, 3, 3, "P2_edge", 96,
            45591, 42487},
        {"13_P2_384", "MobileNetV2 dw 3x3 C144 56x56", Kind::Depthwise, 1, 144, 56, 56, 3, 3, "P2_edge", 384,
            28664, 13175},
        {"14_P2_200", "ResNet50 res5 K512 C512 7x7 3x3", Kind::Conv, 512, 512, 7, 7, 3, 3, "P2_edge", 200,
            905253, 605164},
        {"14_P2_2048", "ResNet50 res5 K512 C512 7x7 3x3", Kind::Conv, 512, 512, 7, 7, 3, 3, "P2_edge", 2048,
            100383, 64822},
        {"15_P2_384", "VGG16 CONV4_1 K512 C256 28x28 3x3", Kind::Conv, 512, 256, 28, 28, 3, 3, "P2_edge", 384,
            2586839, 2446557},
        {"15_P2_2048", "VGG16 CONV4_1 K512 C256 28x28 3x3", Kind::Conv, 512, 256, 28, 28, 3, 3, "P2_edge",
            2048, 811880, 802843},
        {"16_P2_96", "GEMM 512x512x512 (conv K512 C512 Y512 X1)", Kind::Conv, 512, 512, 512, 1, 1, 1,
            "P2_edge", 96, 1401477, 1401191},
        {"16_P2_2048", "GEMM 512x512x512 (conv K512 C512 Y512 X1)", Kind::Conv, 512, 512, 512, 1, 1, 1,
            "P2_edge", 2048, 67964, 67832},
        {"17_P2_200", "BERT-base QKV GEMM M128 K768 N768", Kind::Conv, 768, 768, 128, 1, 1, 1, "P2_edge", 200,
            393545, 386561},
        {"17_P2_384", "BERT-base QKV GEMM M128 K768 N768", Kind::Conv, 768, 768, 128, 1, 1, 1, "P2_edge", 384,
            200298, 197037},
        {"18_P2_96", "BERT-base FFN1 GEMM M128 K768 N3072", Kind::Conv, 3072, 768, 128, 1, 1, 1, "P2_edge",
            96, 3146266, 3146253},
        {"18_P2_2048", "BERT-base FFN1 GEMM M128 K768 N3072", Kind::Conv, 3072, 768, 128, 1, 1, 1, "P2_edge",
            2048, 160231, 153848},
    };
    return cases;
}

} // namespace marvel::workloads
