// Row blocks of an inner product (row_blocks.h).
#include "runtime/kernels/row_blocks.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>

#include "eval/allocation.h"

namespace graft::runtime {
namespace {

using Blocks = CompileOptions::RowBlocks;

constexpr int64_t kMinRowsPerBlock = 32;  // fewer make a GEMM too short to pay for a thread
constexpr double kMinFlops = 5e7;         // smaller products are not worth a measurement
constexpr double kMargin = 0.95;          // row blocks must be 5% faster to be chosen
constexpr int kRounds = 4;                // each way, alternating; the first is a warm-up

/// Primitives created in its scope plan for one thread (oneDNN reads OpenMP's setting).
class OneThread {
 public:
  OneThread() : saved_(omp_get_max_threads()) { omp_set_num_threads(1); }
  ~OneThread() { omp_set_num_threads(saved_); }
  OneThread(const OneThread&) = delete;
  OneThread& operator=(const OneThread&) = delete;

 private:
  int saved_;
};

class BlocksKernel : public Kernel {
 public:
  struct Block {
    dnnl::primitive primitive;
    int64_t first_row = 0;
    md_t src, dst, scratchpad;
    size_t scratchpad_offset = 0;
    std::unordered_map<int, dnnl::memory> args;  // bound
    dnnl::stream stream;
  };

  BlocksKernel(std::vector<Block> blocks, std::vector<std::pair<int, ArgSource>> params,
               size_t src_row_bytes, size_t dst_row_bytes)
      : blocks_(std::move(blocks)), params_(std::move(params)), src_row_bytes_(src_row_bytes),
        dst_row_bytes_(dst_row_bytes) {}

  void bind(const KernelMemories& mems) override {
    src_ = mems.srcs.at(0);
    dst_ = mems.dst;
    for (Block& b : blocks_) {
      b.args.clear();
      // Each block has its own memory objects: handles are set concurrently.
      for (const auto& [arg, source] : params_) {
        b.args[arg] = dnnl::memory(source.owned.get_desc(), cpu_engine(),
                                   source.owned.get_data_handle());
      }
      b.args[DNNL_ARG_SRC] = dnnl::memory(b.src, cpu_engine(), DNNL_MEMORY_NONE);
      b.args[DNNL_ARG_DST] = dnnl::memory(b.dst, cpu_engine(), DNNL_MEMORY_NONE);
      if (b.scratchpad.get_size() > 0) {
        b.args[DNNL_ARG_SCRATCHPAD] = dnnl::memory(
            b.scratchpad, cpu_engine(), static_cast<char*>(mems.scratchpad) + b.scratchpad_offset);
      }
      b.stream = dnnl::stream(cpu_engine());
    }
  }

  void execute(dnnl::stream&) override {
    auto* src = static_cast<char*>(src_.get_data_handle());
    auto* dst = static_cast<char*>(dst_.get_data_handle());
    const auto count = static_cast<int>(blocks_.size());
    // Inside the parallel region oneDNN runs each primitive on the calling thread.
#pragma omp parallel for num_threads(count) schedule(static, 1)
    for (int i = 0; i < count; ++i) {
      Block& b = blocks_[static_cast<size_t>(i)];
      b.args[DNNL_ARG_SRC].set_data_handle(src + static_cast<size_t>(b.first_row) * src_row_bytes_);
      b.args[DNNL_ARG_DST].set_data_handle(dst + static_cast<size_t>(b.first_row) * dst_row_bytes_);
      b.primitive.execute(b.stream, b.args);
    }
  }

 private:
  std::vector<Block> blocks_;
  std::vector<std::pair<int, ArgSource>> params_;
  size_t src_row_bytes_, dst_row_bytes_;
  dnnl::memory src_, dst_;
};

/// Seconds that `run` takes.
template <typename Run>
double seconds(Run&& run) {
  const auto start = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// True if `blocks` runs faster than `whole` on zeros (timing does not depend on the values).
bool blocks_are_faster(const WholeInnerProduct& whole, Kernel& blocks, size_t blocks_scratchpad) {
  auto zeros = [](size_t bytes) {
    return eval::allocate_buffer(std::max<size_t>(bytes, 64), 64, true,
                                 [] { return std::string("a row-block measurement"); });
  };
  const md_t src_md = whole.pd.src_desc(), dst_md = whole.pd.dst_desc();
  auto src = zeros(src_md.get_size()), dst = zeros(dst_md.get_size());
  auto scratch = zeros(std::max(blocks_scratchpad, whole.pd.scratchpad_desc().get_size()));
  std::unordered_map<int, dnnl::memory> args = {
      {DNNL_ARG_SRC, dnnl::memory(src_md, cpu_engine(), src.get())},
      {DNNL_ARG_DST, dnnl::memory(dst_md, cpu_engine(), dst.get())}};
  for (const auto& [arg, source] : whole.params) args[arg] = source.owned;
  if (whole.pd.scratchpad_desc().get_size() > 0) {
    args[DNNL_ARG_SCRATCHPAD] = dnnl::memory(whole.pd.scratchpad_desc(), cpu_engine(), scratch.get());
  }
  blocks.bind({{args[DNNL_ARG_SRC]}, args[DNNL_ARG_DST], scratch.get()});
  dnnl::stream stream(cpu_engine());
  double whole_time = 1e30, blocks_time = 1e30;
  for (int round = 0; round < kRounds; ++round) {
    const double w = seconds([&] {
      whole.primitive.execute(stream, args);
      stream.wait();
    });
    const double b = seconds([&] { blocks.execute(stream); });
    if (round > 0) whole_time = std::min(whole_time, w), blocks_time = std::min(blocks_time, b);
  }
  return blocks_time < kMargin * whole_time;
}

/// Measurements so far: configuration -> row blocks faster.
std::mutex memo_mutex;
std::map<std::string, bool> memo;

}  // namespace

std::optional<RowBlockKernel> row_block_kernel(const InnerProductFactory& make,
                                               const WholeInnerProduct& whole, Blocks mode,
                                               const std::string& key, size_t& scratchpad_bytes) {
  const int threads = omp_get_max_threads();
  if (mode == Blocks::kNever || threads < 2 || whole.rows < threads) return std::nullopt;
  const double flops = 2.0 * static_cast<double>(whole.rows * whole.k * whole.n);
  if (mode == Blocks::kMeasure && (whole.rows < threads * kMinRowsPerBlock || flops < kMinFlops)) {
    return std::nullopt;
  }
  for (const auto& [arg, source] : whole.params) {
    if (source.kind != ArgSource::Kind::kOwned) return std::nullopt;  // computed weights
  }
  const std::string memo_key = key + " threads " + std::to_string(threads);
  std::lock_guard<std::mutex> lock(memo_mutex);
  auto known = memo.find(memo_key);
  if (mode == Blocks::kMeasure && known != memo.end() && !known->second) return std::nullopt;
  const md_t weights = whole.pd.weights_desc();
  std::vector<BlocksKernel::Block> blocks;
  std::string impl;
  size_t offset = 0;
  try {
    OneThread one_thread;
    for (int i = 0; i < threads; ++i) {
      const int64_t first = whole.rows * i / threads, end = whole.rows * (i + 1) / threads;
      auto pd = make(end - first, weights);
      if (pd.weights_desc() != weights) return std::nullopt;
      impl = impl_name(pd);
      BlocksKernel::Block b{dnnl::inner_product_forward(pd), first, pd.src_desc(), pd.dst_desc(),
                            pd.scratchpad_desc(), offset, {}, {}};
      offset += (b.scratchpad.get_size() + 63) / 64 * 64;
      blocks.push_back(std::move(b));
    }
  } catch (const dnnl::error&) {
    return std::nullopt;
  }
  auto kernel = std::make_unique<BlocksKernel>(
      std::move(blocks), whole.params, static_cast<size_t>(whole.k) * sizeof(float),
      static_cast<size_t>(whole.n) * sizeof(float));
  if (mode == Blocks::kMeasure && known == memo.end()) {
    known = memo.emplace(memo_key, blocks_are_faster(whole, *kernel, offset)).first;
  }
  if (mode == Blocks::kMeasure && !known->second) return std::nullopt;
  scratchpad_bytes = std::max(scratchpad_bytes, offset);
  return RowBlockKernel{std::move(kernel), impl};
}

}  // namespace graft::runtime
