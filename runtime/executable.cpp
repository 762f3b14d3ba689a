// Executable: input/output checks, the run loop, and the dump.
#include "runtime/executable.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>

#include <omp.h>

#include "engine/support/terminal_text.h"
#include "runtime/executable_impl.h"

namespace graft::runtime {

using eval::Tensor;

std::unique_ptr<Executable> make_executable(std::unique_ptr<Executable::Impl> impl) {
  return std::unique_ptr<Executable>(new Executable(std::move(impl)));
}

Executable::Executable(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Executable::~Executable() = default;

const std::vector<TensorInfo>& Executable::inputs() const { return impl_->inputs; }
const std::vector<TensorInfo>& Executable::outputs() const { return impl_->outputs; }
const std::vector<StepInfo>& Executable::steps() const { return impl_->steps; }
size_t Executable::peak_activation_bytes() const { return impl_->plan.arena_bytes; }
size_t Executable::weight_bytes() const { return impl_->weight_bytes; }
size_t Executable::scratchpad_bytes() const { return impl_->scratchpad_bytes; }
const MemoryPlan& Executable::memory_plan() const { return impl_->plan; }
const std::vector<BufferRequest>& Executable::buffer_requests() const { return impl_->requests; }

namespace {

bool check_tensors(const char* what, const std::vector<Tensor>& given,
                   const std::vector<TensorInfo>& expected, DiagnosticEngine& diags) {
  if (given.size() != expected.size()) {
    diags.error({}, std::string("the model has ") + std::to_string(expected.size()) + " " + what +
                        "s, " + std::to_string(given.size()) + " given");
    return false;
  }
  for (size_t i = 0; i < given.size(); ++i) {
    const TensorInfo& e = expected[i];
    if (given[i].dtype() != e.dtype || given[i].shape() != e.shape) {
      diags.error({}, std::string(what) + " '" + e.name + "' must be " +
                          type_to_string({e.dtype, e.shape}) + " (as compiled), got " +
                          type_to_string({given[i].dtype(), given[i].shape()}));
      return false;
    }
    if (given[i].data() == nullptr && given[i].nbytes() > 0) {
      diags.error({}, std::string(what) + " '" + e.name + "' has no data");
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<std::vector<Tensor>> Executable::run(const std::vector<Tensor>& inputs,
                                                   DiagnosticEngine& diags) {
  std::vector<Tensor> outputs;
  for (const TensorInfo& o : impl_->outputs) outputs.push_back(Tensor::zeros(o.dtype, o.shape));
  if (!run_into(inputs, outputs, diags)) return std::nullopt;
  return outputs;
}

bool Executable::run_into(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
                          DiagnosticEngine& diags, std::vector<double>* step_ms) {
  if (!check_tensors("input", inputs, impl_->inputs, diags) ||
      !check_tensors("output", outputs, impl_->outputs, diags)) {
    return false;
  }
  // The only per-run bookkeeping: point the memories on model inputs and outputs at the
  // caller's bytes (a handle swap, no allocation).
  for (size_t i = 0; i < inputs.size(); ++i) {
    for (auto& [m, offset] : impl_->input_memories[i]) {
      m.set_data_handle(static_cast<char*>(inputs[i].data()) + offset);
    }
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    for (auto& [m, offset] : impl_->output_memories[i]) {
      m.set_data_handle(static_cast<char*>(outputs[i].data()) + offset);
    }
  }
  try {
    if (step_ms == nullptr) {
      for (auto& kernel : impl_->kernels) kernel->execute(impl_->stream);
      impl_->stream.wait();
      return true;
    }
    step_ms->assign(impl_->kernels.size(), 0.0);
    for (size_t s = 0; s < impl_->kernels.size(); ++s) {
      auto start = std::chrono::steady_clock::now();
      impl_->kernels[s]->execute(impl_->stream);
      impl_->stream.wait();
      (*step_ms)[s] =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }
  } catch (const KernelRunError& e) {
    impl_->stream.wait();
    diags.error({}, e.what());
    return false;
  }
  return true;
}

std::string Executable::dump() const {
  std::ostringstream out;
  for (size_t s = 0; s < impl_->steps.size(); ++s) {
    const StepInfo& step = impl_->steps[s];
    char line[512];
    // Step names are node names, the model's text: escaped, one line per step.
    std::snprintf(line, sizeof line, "%4zu  %-28s %-14s %-10s %s%s\n", s,
                  escape_for_terminal(step.name).c_str(),
                  step.op.c_str(), step.layout.c_str(), step.impl.c_str(),
                  step.in_place ? "  [in-place]" : "");
    out << line;
  }
  out << "memory: " << impl_->plan.summary() << "; weights " << impl_->weight_bytes
      << " B; scratchpad " << impl_->scratchpad_bytes << " B\n";
  return out.str();
}

void set_num_threads(int threads) {
  omp_set_num_threads(std::min(threads > 0 ? threads : omp_get_max_threads(), kMaxThreads));
}

int max_threads() { return omp_get_max_threads(); }

}  // namespace graft::runtime
