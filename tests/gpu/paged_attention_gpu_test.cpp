// The paged attention kernels against their contiguous rungs: the same K/V,
// once in a contiguous cache and once scattered over a pool through shuffled
// block tables. Decode: equal to splitkv_mma within bf16 tolerance at any
// batch, bit-equal at the same split plan, and bit-equal across batch sizes
// with fixed splits; prefill of a later chunk: bit-equal to flash_mma over the
// whole sequence and close to the naive rung; the paged K/V write: bit-equal
// to ropeAppendKv. Skips without a GPU.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "attention/attention.h"
#include "attention/paged_attention.h"
#include "common/device_buffer.h"
#include "host/bf16.h"

namespace ws::kernels {
namespace {

bool haveGpu() {
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

using Bits = std::vector<bf16_bits>;

template <typename T>
DeviceBuffer<T> upload(const std::vector<T>& host) {
    DeviceBuffer<T> d(host.size());
    EXPECT_EQ(cudaMemcpy(d.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice),
              cudaSuccess);
    return d;
}

DeviceBuffer<__nv_bfloat16> uploadBf16(const Bits& host) {
    DeviceBuffer<__nv_bfloat16> d(host.size());
    EXPECT_EQ(cudaMemcpy(d.get(), host.data(), host.size() * 2, cudaMemcpyHostToDevice),
              cudaSuccess);
    return d;
}

Bits randomBits(std::size_t n, std::uint64_t seed) {
    Bits v(n);
    for (std::size_t i = 0; i < n; ++i)
        v[i] = floatToBf16(uniformAt(seed, i, 1.0f));
    return v;
}

constexpr int kHeads = 8, kKvHeads = 2, kHd = 128, kBlock = 16;
constexpr int kQkvWidth = (kHeads + 2 * kKvHeads) * kHd;

// A set of sequences whose K/V live both contiguously ([seq][kvh][capacity][hd])
// and in a pool through shuffled block tables.
struct KvFixture {
    int capacity, maxBlocks, numBlocks;
    std::vector<int> lengths;
    std::vector<std::int32_t> tables;  // seq × maxBlocks
    Bits k, v;                         // contiguous
    Bits kPool, vPool;

    KvFixture(std::vector<int> lens, int cap, std::uint64_t seed)
        : capacity(cap), maxBlocks((cap + kBlock - 1) / kBlock), lengths(std::move(lens)) {
        const int seqs = int(lengths.size());
        numBlocks = seqs * maxBlocks + 3;
        std::vector<int> ids(static_cast<std::size_t>(numBlocks));
        std::iota(ids.begin(), ids.end(), 0);
        std::shuffle(ids.begin(), ids.end(), std::mt19937(unsigned(seed)));
        tables.assign(std::size_t(seqs) * maxBlocks, 0);
        for (std::size_t i = 0; i < tables.size(); ++i)
            tables[i] = ids[i];
        std::size_t cache = std::size_t(seqs) * kKvHeads * capacity * kHd;
        k = randomBits(cache, seed + 1);
        v = randomBits(cache, seed + 2);
        std::size_t pool = pagedPoolElements(shape(), numBlocks);
        kPool = randomBits(pool, seed + 3);  // garbage where no sequence lives
        vPool = randomBits(pool, seed + 4);
        for (int s = 0; s < seqs; ++s)
            for (int h = 0; h < kKvHeads; ++h)
                for (int p = 0; p < capacity; ++p) {
                    std::size_t src = ((std::size_t(s) * kKvHeads + h) * capacity + p) * kHd;
                    std::size_t block =
                        std::size_t(tables[std::size_t(s) * maxBlocks + p / kBlock]);
                    std::size_t dst = ((block * kKvHeads + h) * kBlock + p % kBlock) * kHd;
                    std::copy_n(k.begin() + std::ptrdiff_t(src), kHd,
                                kPool.begin() + std::ptrdiff_t(dst));
                    std::copy_n(v.begin() + std::ptrdiff_t(src), kHd,
                                vPool.begin() + std::ptrdiff_t(dst));
                }
    }
    PagedKvShape shape() const { return PagedKvShape{kHeads, kKvHeads, kHd, kBlock, maxBlocks}; }
};

float maxAbsDiff(const Bits& a, const Bits& b) {
    float worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        worst = std::max(worst, std::fabs(bf16ToFloat(a[i]) - bf16ToFloat(b[i])));
    return worst;
}

// Paged decode of every sequence at once, against the contiguous rung one sequence at a time.
TEST(PagedAttentionGpu, DecodeMatchesContiguousSplitKvMma) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device";
    const std::vector<int> lengths = {1, 17, 64, 200, 511, 1000, 1531, 16};
    const int seqs = int(lengths.size()), cap = 1536;
    KvFixture f(lengths, cap, 11);
    Bits q = randomBits(std::size_t(seqs) * kQkvWidth, 99);
    auto dq = uploadBf16(q);
    auto dk = uploadBf16(f.k), dv = uploadBf16(f.v), dkp = uploadBf16(f.kPool),
         dvp = uploadBf16(f.vPool);
    auto dTables = upload(f.tables);
    std::vector<std::int32_t> lens(lengths.begin(), lengths.end());
    auto dLens = upload(lens);
    const PagedKvShape ps = f.shape();
    DeviceBuffer<float> ws(pagedDecodeWorkspaceFloats(ps, seqs, cap));
    ASSERT_EQ(cudaMemset(ws.get(), 0, ws.bytes()), cudaSuccess);

    auto paged = [&](bool fixed, int batch, int first) {
        DeviceBuffer<__nv_bfloat16> out(std::size_t(batch) * kHeads * kHd);
        pagedDecodeAttention(dq.get() + std::size_t(first) * kQkvWidth, kQkvWidth, dkp.get(),
                             dvp.get(), dTables.get() + std::size_t(first) * f.maxBlocks,
                             dLens.get() + first, out.get(), ps, batch, seqs, cap, fixed, ws.get(),
                             nullptr);
        EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        return out.toHost<bf16_bits>();
    };
    const Bits all = paged(false, seqs, 0), allFixed = paged(true, seqs, 0);
    const std::size_t row = std::size_t(kHeads) * kHd;
    AttentionShape one{1, kHeads, kKvHeads, kHd, cap};
    DeviceBuffer<float> cws(decodeWorkspaceFloats(one));
    ASSERT_EQ(cudaMemset(cws.get(), 0, cws.bytes()), cudaSuccess);
    for (int s = 0; s < seqs; ++s) {
        DeviceBuffer<__nv_bfloat16> out(row);
        std::size_t cache = std::size_t(kKvHeads) * cap * kHd * std::size_t(s);
        decodeAttention(DecodeAttentionRung::SplitKvMma, dq.get() + std::size_t(s) * kQkvWidth,
                        kQkvWidth, dk.get() + cache, dv.get() + cache, out.get(), one,
                        dLens.get() + s, cws.get(), nullptr);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        const Bits want = out.toHost<bf16_bits>();
        Bits got(all.begin() + std::ptrdiff_t(s * row),
                 all.begin() + std::ptrdiff_t((s + 1) * row));
        Bits gotFixed(allFixed.begin() + std::ptrdiff_t(s * row),
                      allFixed.begin() + std::ptrdiff_t((s + 1) * row));
        EXPECT_LE(maxAbsDiff(got, want), 2e-2f) << "sequence " << s << " length " << lengths[s];
        EXPECT_LE(maxAbsDiff(gotFixed, want), 2e-2f) << "sequence " << s;
        // The same split plan (batch 1, the same capacity) gives the same bits.
        EXPECT_EQ(paged(false, 1, s), want) << "sequence " << s;
        // Fixed splits: the batch changes nothing.
        EXPECT_EQ(paged(true, 1, s), gotFixed) << "sequence " << s;
    }
}

// A later chunk of each sequence through the pool, against flash_mma and the
// naive rung over the whole sequence in a contiguous cache.
TEST(PagedAttentionGpu, ChunkedPrefillMatchesContiguousPrefill) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device";
    // (length, chunk start): the chunk is positions start … length − 1.
    const std::vector<std::pair<int, int>> seqs = {{40, 0}, {130, 64}, {300, 17}, {97, 96}};
    std::vector<int> lengths;
    for (auto [len, start] : seqs)
        lengths.push_back(len);
    const int cap = 320;
    KvFixture f(lengths, cap, 21);
    // q of every position of every sequence, [seq][capacity] rows.
    Bits q = randomBits(std::size_t(seqs.size()) * cap * kQkvWidth, 77);
    auto dk = uploadBf16(f.k), dv = uploadBf16(f.v), dkp = uploadBf16(f.kPool),
         dvp = uploadBf16(f.vPool);
    auto dTables = upload(f.tables);

    Bits varlen;
    std::vector<std::int32_t> rowStart, queries, firstPos;
    int maxQueries = 0;
    for (std::size_t s = 0; s < seqs.size(); ++s) {
        auto [len, start] = seqs[s];
        rowStart.push_back(std::int32_t(varlen.size() / kQkvWidth));
        queries.push_back(len - start);
        firstPos.push_back(start);
        maxQueries = std::max(maxQueries, len - start);
        auto from = q.begin() + std::ptrdiff_t((s * cap + std::size_t(start)) * kQkvWidth);
        varlen.insert(varlen.end(), from,
                      from + std::ptrdiff_t(std::size_t(len - start) * kQkvWidth));
    }
    const int rows = int(varlen.size() / kQkvWidth);
    auto dVarlen = uploadBf16(varlen);
    auto dRowStart = upload(rowStart), dQueries = upload(queries), dFirst = upload(firstPos);
    DeviceBuffer<__nv_bfloat16> out(std::size_t(rows) * kHeads * kHd);
    pagedPrefillAttention(dVarlen.get(), kQkvWidth, dkp.get(), dvp.get(), dTables.get(),
                          dRowStart.get(), dQueries.get(), dFirst.get(), out.get(), f.shape(),
                          int(seqs.size()), maxQueries, nullptr);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const Bits got = out.toHost<bf16_bits>();
    const std::size_t row = std::size_t(kHeads) * kHd;

    for (std::size_t s = 0; s < seqs.size(); ++s) {
        auto [len, start] = seqs[s];
        AttentionShape one{1, kHeads, kKvHeads, kHd, cap};
        std::size_t cache = std::size_t(kKvHeads) * cap * kHd * s;
        auto whole =
            uploadBf16(Bits(q.begin() + std::ptrdiff_t(s * cap * kQkvWidth),
                            q.begin() + std::ptrdiff_t((s * cap + std::size_t(len)) * kQkvWidth)));
        for (auto rung : {PrefillAttentionRung::FlashMma, PrefillAttentionRung::Naive}) {
            DeviceBuffer<__nv_bfloat16> ref(std::size_t(len) * row);
            prefillAttention(rung, whole.get(), kQkvWidth, dk.get() + cache, dv.get() + cache,
                             ref.get(), one, len, 0, nullptr);
            ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
            const Bits want = ref.toHost<bf16_bits>();
            Bits wantChunk(want.begin() + std::ptrdiff_t(std::size_t(start) * row), want.end());
            Bits gotChunk(
                got.begin() + std::ptrdiff_t(std::size_t(rowStart[s]) * row),
                got.begin() + std::ptrdiff_t(std::size_t(rowStart[s] + len - start) * row));
            if (rung == PrefillAttentionRung::FlashMma)
                EXPECT_EQ(gotChunk, wantChunk) << "sequence " << s;
            else
                EXPECT_LE(maxAbsDiff(gotChunk, wantChunk), 2e-2f) << "sequence " << s;
        }
    }
}

// The paged write stores, through the slots, exactly what ropeAppendKv stores
// contiguously, and rotates q the same; padding rows (slot −1) store nothing.
TEST(PagedAttentionGpu, PagedKvWriteMatchesRopeAppendKv) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device";
    const int tokens = 37, start = 21, cap = 64;
    KvFixture f({cap}, cap, 31);
    Bits qkv = randomBits(std::size_t(tokens) * kQkvWidth, 5);
    auto contiguous = uploadBf16(qkv), paged = uploadBf16(qkv);
    AttentionShape one{1, kHeads, kKvHeads, kHd, cap};
    DeviceBuffer<__nv_bfloat16> k(std::size_t(kKvHeads) * cap * kHd), v(k.size());
    ASSERT_EQ(cudaMemset(k.get(), 0, k.bytes()), cudaSuccess);
    ASSERT_EQ(cudaMemset(v.get(), 0, v.bytes()), cudaSuccess);
    auto base = upload(std::vector<int>{start});
    ropeAppendKv(contiguous.get(), tokens, kQkvWidth, one, tokens, base.get(), 500000.0f, k.get(),
                 v.get(), nullptr);
    std::vector<std::int32_t> positions, slots;
    for (int t = 0; t < tokens; ++t) {
        int p = start + t;
        positions.push_back(p);
        slots.push_back(t == 3 ? -1 : f.tables[std::size_t(p / kBlock)] * kBlock + p % kBlock);
    }
    auto dPos = upload(positions), dSlots = upload(slots);
    auto kp = uploadBf16(f.kPool), vp = uploadBf16(f.vPool);
    pagedRopeAppendKv(paged.get(), tokens, kQkvWidth, f.shape(), dPos.get(), dSlots.get(),
                      500000.0f, kp.get(), vp.get(), nullptr);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const Bits qc = contiguous.toHost<bf16_bits>(), qp = paged.toHost<bf16_bits>();
    for (int t = 0; t < tokens; ++t)  // q heads rotated alike
        for (int i = 0; i < kHeads * kHd; ++i)
            ASSERT_EQ(qc[std::size_t(t) * kQkvWidth + std::size_t(i)],
                      qp[std::size_t(t) * kQkvWidth + std::size_t(i)]);
    const Bits kc = k.toHost<bf16_bits>(), vc = v.toHost<bf16_bits>();
    const Bits kpool = kp.toHost<bf16_bits>(), vpool = vp.toHost<bf16_bits>();
    for (int t = 0; t < tokens; ++t)
        for (int h = 0; h < kKvHeads; ++h)
            for (int d = 0; d < kHd; ++d) {
                int p = start + t;
                std::size_t c = (std::size_t(h) * cap + std::size_t(p)) * kHd + std::size_t(d);
                std::size_t block = std::size_t(f.tables[std::size_t(p / kBlock)]);
                std::size_t at =
                    ((block * kKvHeads + std::size_t(h)) * kBlock + std::size_t(p % kBlock)) * kHd +
                    std::size_t(d);
                if (t == 3) {  // untouched: the pool's earlier contents
                    ASSERT_EQ(kpool[at], f.kPool[at]);
                    continue;
                }
                ASSERT_EQ(kpool[at], kc[c]) << "token " << t << " head " << h << " d " << d;
                ASSERT_EQ(vpool[at], vc[c]) << "token " << t << " head " << h << " d " << d;
            }
}

}  // namespace
}  // namespace ws::kernels
