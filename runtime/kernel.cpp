// PrimitiveKernel binding and the KernelContext accessors builders use.
#include "runtime/kernel.h"

#include "engine/io/safetensors.h"
#include "engine/support/check.h"

namespace graft::runtime {

void PrimitiveKernel::add(dnnl::primitive prim, std::vector<std::pair<int, ArgSource>> args) {
  calls_.push_back({std::move(prim), std::move(args), {}});
}

dnnl::memory PrimitiveKernel::make_view(const dnnl::memory& base, const md_t& md) {
  if (md.is_zero() || md == base.get_desc()) return base;
  dnnl::memory view(md, cpu_engine(), base.get_data_handle());
  views_.push_back({view, base});
  return view;
}

void PrimitiveKernel::bind(const KernelMemories& mems) {
  views_.clear();
  for (Call& call : calls_) {
    call.bound.clear();
    for (const auto& [arg, source] : call.args) {
      dnnl::memory m;
      switch (source.kind) {
        case ArgSource::Kind::kSrc:
          GRAFT_CHECK(static_cast<size_t>(source.index) < mems.srcs.size() &&
                      mems.srcs[static_cast<size_t>(source.index)])
              << "kernel source " << source.index << " is not bound";
          m = make_view(mems.srcs[static_cast<size_t>(source.index)], source.md);
          break;
        case ArgSource::Kind::kDst:
          m = make_view(mems.dst, source.md);
          break;
        case ArgSource::Kind::kScratchpad:
          m = dnnl::memory(source.md, cpu_engine(), mems.scratchpad);
          break;
        case ArgSource::Kind::kOwned:
          m = source.owned;
          break;
      }
      call.bound[arg] = m;
    }
  }
}

void PrimitiveKernel::execute(dnnl::stream& stream) {
  for (View& v : views_) {
    void* handle = v.base.get_data_handle();
    if (v.view.get_data_handle() != handle) v.view.set_data_handle(handle);
  }
  for (Call& call : calls_) call.prim.execute(stream, call.bound);
}

const Operand& KernelContext::operand(size_t i) const {
  static const Operand kNone;
  return i < operands_.size() ? operands_[i] : kNone;
}

md_t KernelContext::pass_through_md(size_t i) const {
  const Operand& o = operand(i);
  if (allow_blocked_ && !o.md.is_zero()) return o.md;
  return plain_md(o.shape(), o.type.dtype);
}

bool KernelContext::has_attr(const std::string& name) const {
  return node_.schema() && node_.schema()->attr_index(name) >= 0;
}

const AttrValue* KernelContext::attr(const std::string& name) {
  if (!has_attr(name)) {
    fail("the kernel needs the attribute '" + name + "', which op '" + op() +
         "' does not declare (the op table and runtime/kernels disagree)");
    return nullptr;
  }
  return &node_.attrs()[static_cast<size_t>(node_.schema()->attr_index(name))];
}

std::optional<int64_t> KernelContext::int_attr(const std::string& name) {
  const AttrValue* v = attr(name);
  if (!v) return std::nullopt;
  if (const auto* i = std::get_if<int64_t>(v)) return *i;
  if (const auto* b = std::get_if<bool>(v)) return *b ? 1 : 0;
  return fail("attribute '" + name + "' is " + attr_to_string(*v) + ", expected an int");
}

std::optional<double> KernelContext::float_attr(const std::string& name) {
  const AttrValue* v = attr(name);
  if (!v) return std::nullopt;
  if (const auto* d = std::get_if<double>(v)) return *d;
  if (const auto* i = std::get_if<int64_t>(v)) return static_cast<double>(*i);
  return fail("attribute '" + name + "' is " + attr_to_string(*v) + ", expected a number");
}

std::optional<double> KernelContext::float_or(const std::string& name, double fallback) {
  const AttrValue* v = attr(name);
  if (!v) return std::nullopt;
  if (is_none(*v)) return fallback;
  return float_attr(name);
}

std::optional<bool> KernelContext::bool_attr(const std::string& name) {
  const AttrValue* v = attr(name);
  if (!v) return std::nullopt;
  if (const auto* b = std::get_if<bool>(v)) return *b;
  if (const auto* i = std::get_if<int64_t>(v)) return *i != 0;
  return fail("attribute '" + name + "' is " + attr_to_string(*v) + ", expected a bool");
}

std::optional<std::string> KernelContext::str_attr(const std::string& name) {
  const AttrValue* v = attr(name);
  if (!v) return std::nullopt;
  if (const auto* s = std::get_if<std::string>(v)) return *s;
  return fail("attribute '" + name + "' is " + attr_to_string(*v) + ", expected a string");
}

std::optional<std::vector<int64_t>> KernelContext::ints_attr(const std::string& name) {
  const AttrValue* v = attr(name);
  if (!v) return std::nullopt;
  if (const auto* l = std::get_if<std::vector<int64_t>>(v)) return *l;
  if (const auto* i = std::get_if<int64_t>(v)) return std::vector<int64_t>{*i};
  if (const auto* d = std::get_if<std::vector<double>>(v); d && d->empty()) {
    return std::vector<int64_t>{};
  }
  return fail("attribute '" + name + "' is " + attr_to_string(*v) + ", expected a list of ints");
}

std::optional<std::vector<int64_t>> KernelContext::ints_or_none(const std::string& name) {
  const AttrValue* v = attr(name);
  if (!v) return std::nullopt;
  if (is_none(*v)) return std::vector<int64_t>{};
  return ints_attr(name);
}

std::nullopt_t KernelContext::fail(const std::string& message) {
  diags_.error(DiagLocation::in_file(source_),
               "node '" + node_.name() + "' (" + op() + "): " + message);
  return std::nullopt;
}

std::nullopt_t KernelContext::not_implemented(const std::string& what) {
  return fail("not implemented in the runtime: " + what + " (operands: " + operand_types() + ")");
}

std::string KernelContext::operand_types() const {
  std::string text;
  for (const Operand& o : operands_) {
    if (!text.empty()) text += ", ";
    if (o.is_tensor()) {
      text += type_to_string(o.type);
    } else if (o.is_scalar()) {
      text += "scalar " + std::to_string(o.scalar);
    } else {
      text += "None";
    }
  }
  return text;
}

dnnl::primitive_attr KernelContext::scratchpad_attr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

KernelPlan make_plan(const KernelContext& ctx) {
  KernelPlan plan;
  plan.src_mds.resize(ctx.num_operands());
  return plan;
}

void add_scratchpad(KernelPlan& plan, const dnnl::primitive_desc_base& pd) {
  plan.scratchpad_bytes = std::max(plan.scratchpad_bytes, pd.scratchpad_desc().get_size());
}

void append_scratchpad_arg(std::vector<std::pair<int, ArgSource>>& args,
                           const dnnl::primitive_desc_base& pd) {
  md_t md = pd.scratchpad_desc();
  if (md.get_size() > 0) args.push_back({DNNL_ARG_SCRATCHPAD, ArgSource::scratchpad(md)});
}

void bind_parameter(const KernelContext& ctx, KernelPlan& plan,
                    std::vector<std::pair<int, ArgSource>>& args, int arg, const Operand& operand,
                    int slot, const md_t& given, const md_t& wanted) {
  if (operand.constant != nullptr) {
    args.push_back({arg, ArgSource::own(reorder_constant(*operand.constant, given, wanted, ctx.engine()))});
    plan.weight_bytes += wanted.get_size();
    // The kernel reads its copy from now on: the file's pages need not stay in memory too.
    drop_resident_pages(*operand.constant);
  } else {
    plan.src_mds[static_cast<size_t>(slot)] = wanted;
    args.push_back({arg, ArgSource::src(slot)});
  }
}

void set_single_primitive(KernelPlan& plan, const dnnl::primitive_desc_base& pd,
                          dnnl::primitive prim, std::vector<std::pair<int, ArgSource>> args,
                          const std::string& family) {
  append_scratchpad_arg(args, pd);
  add_scratchpad(plan, pd);
  auto kernel = std::make_unique<PrimitiveKernel>();
  kernel->add(std::move(prim), std::move(args));
  plan.kernel = std::move(kernel);
  plan.impl = family + " " + impl_name(pd);
}

}  // namespace graft::runtime
