// Constant tensors referenced by get_attr nodes: weights memory-mapped from safetensors, and
// tensors created by rewrites (folded batch-norm weights). A tensor's bytes are immutable and
// kept alive by `owner`, so a graph and its clones can share them without copying.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/ir/shape.h"
#include "engine/support/check.h"
#include "engine/support/name_index.h"
#include "engine/support/stable_vector.h"

namespace graft {

/// The one name a constant cannot have: safetensors reserves the header key "__metadata__" for
/// the file's metadata, so a tensor stored under it would be read back as metadata. The model
/// loader rejects it and unique_name() never gives it.
inline constexpr std::string_view kReservedConstantName = "__metadata__";

struct ConstantTensor {
  const std::byte* data = nullptr;    // little-endian, row-major, dtype_size(dtype) * count
  size_t nbytes = 0;
  std::shared_ptr<const void> owner;  // the mmapped file or an owned buffer
  /// The bytes are a read-only file mapping's (model.safetensors): pages dropped from memory
  /// (drop_resident_pages) are read back from the file on the next access.
  bool file_backed = false;
  /// The model registered it as a buffer (running_mean) rather than an nn.Parameter: the
  /// `buffer(w)` and `param(w)` conditions read it; model.json lists buffers in "buffers".
  /// A constant a rewrite computes is a buffer when every constant it is computed from is.
  bool buffer = false;

  /// The tensor's type (concrete), unique_type()'s copy: `&a.type() == &b.type()` iff the
  /// types are equal, so a check that a tensor has an expected type is one comparison, and
  /// a tensor's handle carries no shape vector of its own. float32[] until set_type().
  const TensorType& type() const { return *type_; }
  DType dtype() const { return type_->dtype; }
  const Shape& shape() const { return type_->shape; }
  void set_type(const TensorType& type) { type_ = unique_type(type); }
  /// `uniqued` must be unique_type()'s (a node's or another tensor's type): no lookup.
  void set_type(const TensorType* uniqued) {
    GRAFT_DCHECK(is_unique_type(uniqued)) << "a type not uniqued";
    type_ = uniqued;
  }
  int64_t numel() const { return nbytes / dtype_size(dtype()); }
  const float* f32() const { return reinterpret_cast<const float*>(data); }
  /// A tensor that owns a copy of `bytes`.
  static ConstantTensor owned(DType dtype, Shape shape, std::vector<std::byte> bytes);
  static ConstantTensor from_floats(Shape shape, const std::vector<float>& values);

 private:
  static const TensorType* scalar_f32();
  const TensorType* type_ = scalar_f32();
};

/// Whether a constant computed from `operands` (nullptr for a scalar or None) is a buffer:
/// only when it is computed from constants and each is a buffer (batch norm's running stats
/// alone); one that involves a parameter, or literals only, is a parameter.
bool computed_from_buffers(const std::vector<const ConstantTensor*>& operands);

/// Where a named constant sits in a ConstantStore, remembered by its get_attr node so that
/// reading the tensor skips the by-name lookup: on a big graph that lookup is three cache misses
/// (hash slot, entry, the name's characters), and the rewrite driver reads every constant it
/// folds. A stale reference (the constant erased or renamed, the store replaced) is detected by
/// its stamp — unique in the process, never reused — and is never followed.
struct ConstantRef {
  uint32_t slot = 0;
  uint64_t stamp = 0;  // 0: refers to nothing
};

/// Name -> tensor. Unordered (rewrites add a constant per fold, and lookups by long, similar
/// names are hot); whoever needs an order sorts — the saver writes tensors sorted by name.
/// Entries live in a StableVector (stable addresses, allocated in chunks, erased slots reused)
/// indexed by a NameIndex: a rewrite of a million-node graph looks up and adds constants ~10^6
/// times, and a node-based hash map would make each a few cache misses and a malloc.
class ConstantStore {
 public:
  /// One named tensor.
  struct Entry {
    std::string key;
    ConstantTensor tensor;
    size_t slot = 0;     // its place in entries_
    uint64_t stamp = 0;  // ConstantRef's check: new for every name stored, 0 once erased
    uint32_t readers = 0;  // see readers()
    bool live = false;     // false once erased (the slot waits for reuse)
    const std::string& name() const { return key; }
  };

  /// The live entries, in no particular order.
  class Range {
   public:
    class iterator {
     public:
      iterator(const ConstantStore* store, size_t i) : store_(store), i_(i) { skip_erased(); }
      const Entry& operator*() const { return store_->entries_[i_]; }
      iterator& operator++() {
        ++i_;
        skip_erased();
        return *this;
      }
      bool operator==(const iterator& o) const { return i_ == o.i_; }

     private:
      void skip_erased() {
        while (i_ < store_->entries_.size() && !store_->entries_[i_].live) ++i_;
      }
      const ConstantStore* store_;
      size_t i_;
    };
    explicit Range(const ConstantStore* store) : store_(store) {}
    iterator begin() const { return iterator(store_, 0); }
    iterator end() const { return iterator(store_, store_->entries_.size()); }

   private:
    const ConstantStore* store_;
  };

  ConstantStore() = default;
  ConstantStore(const ConstantStore& other) { *this = other; }
  ConstantStore& operator=(const ConstantStore& other);
  // A StableVector's move keeps its elements where they are, so the index stays valid.
  ConstantStore(ConstantStore&&) = default;
  ConstantStore& operator=(ConstantStore&&) = default;

  const ConstantTensor* find(std::string_view name) const;
  /// The same, through `ref` when it is current (no lookup), otherwise by name.
  const ConstantTensor* find(std::string_view name, const ConstantRef& ref) const;
  /// A reference to the constant named `name`; one that refers to nothing when there is none.
  ConstantRef ref_of(std::string_view name) const;
  void set(const std::string& name, ConstantTensor tensor);
  /// Stores `tensor` as `name` unless a live get_attr node reads the constant `name` (readers()
  /// > 0): an unread one is replaced as erase() then set() would (its references go stale), in
  /// one lookup instead of five — the rewrite driver gives each folded weight the name of the
  /// constant it replaces. Returns the stored entry's reference; a null one (stamp 0), with
  /// `tensor` left as it was, when the name is read. One index probe.
  ConstantRef store_unless_read(const std::string& name, ConstantTensor&& tensor);
  bool erase(std::string_view name);
  bool contains(std::string_view name) const { return index_.find(name) != nullptr; }
  Range all() const { return Range(this); }
  size_t size() const { return index_.size(); }
  /// `base` if unused (and not kReservedConstantName), otherwise `base_1`, `base_2`, …
  std::string unique_name(const std::string& base) const;
  /// How many live get_attr nodes of the graph owning this store read the constant `name`
  /// (0 when there is none). The Graph keeps the count as it adds, re-targets and erases
  /// get_attr nodes; a node counts for the entry its ConstantRef was made for, so one whose
  /// constant was erased and stored again under the same name is not counted for the new one.
  /// The rewrite driver asks this before a folded weight takes over a constant's name.
  uint32_t readers(std::string_view name) const;

 private:
  friend class Graph;
  /// Adds `delta` to the reader count of the entry `ref` refers to; nothing when it is stale.
  void add_readers(const ConstantRef& ref, int delta);
  /// True if `ref` refers to a stored entry (not to nothing, nor to an erased or replaced one).
  bool is_current(const ConstantRef& ref) const;
  /// The entry named `name`: a new one (`*added`; live, no readers, a new stamp, no tensor)
  /// or the existing one. One index probe.
  Entry* add_or_find(const std::string& name, bool* added);

  StableVector<Entry> entries_;
  std::vector<size_t> free_;  // erased entries' slots, reused first
  NameIndex<Entry> index_;    // the live entries by name
};

}  // namespace graft
