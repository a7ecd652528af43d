// A table's entries, found by their key's words without a lock: an open-addressed slot array
// (linear probing, at most a quarter full, so that a hit rarely probes a second slot) that
// readers reach with one acquire load. An entry is made whole before it is published and never
// changes; a slot goes from empty to an entry once (a release store), so a reader sees either no
// entry or a whole one. When the slots would pass a quarter full, a slot array twice as large is
// filled and published instead; the old ones are kept until the set dies, so a reader never
// holds a freed array (they add up to less than the last one). Writers take turns on the
// owner's mutex.
#ifndef KWCALL_SRC_DISPATCH_ENTRY_SET_H_
#define KWCALL_SRC_DISPATCH_ENTRY_SET_H_

#include <kwcall/dispatch.h>
#include <tvm/ffi/function.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dispatch/key_reader.h"

namespace kwcall {

/*! \brief One specialization: its key (words, str values, values) and its function. */
struct Entry {
  using FCall = ffi::FunctionObj::FCall;

  // What a hit reads, together and in the entry itself (no pointer to follow): the hash, the
  // callee and the words.
  uint64_t hash;
  const ffi::FunctionObj* object;
  FCall call;                               // what object->CallPacked would call, chosen once
  uint64_t words[KeyWordsCapacity()] = {};  // KeyWords' words, num_words of them, then 0s

  std::vector<std::string> strs;  // the str values, one a term ("" where none)
  Key key;                        // as the table keeps it
  ffi::Function function;         // as added (Get returns it)
  ffi::Function callee;           // what is called: a kwcall function's target, else function
  ffi::Any keep_alive;            // what must live as long as the function (a Python object)

  void Call(const ffi::AnyView* args, int32_t num_args, ffi::Any* result) const {
    call(object, args, num_args, result);
  }
};

class EntrySet {
 public:
  explicit EntrySet(int32_t num_words)
      : num_words_(num_words), num_compared_(KeyWords::Compared(num_words)) {
    Publish(kFirstCapacity);
  }

  /*!
   * \brief The entry whose key a call's words (and str values) are, or nullptr; `hash` is the
   *        words' (KeyReader::Read gives it).
   */
  const Entry* Find(const KeyWords& words, uint64_t hash, const KeyReader& reader,
                    const TVMFFIAny* args) const {
    const Slots* slots = current_.load(std::memory_order_acquire);
    for (uint64_t i = slots->First(hash);; ++i) {
      const Entry* entry = slots->slot[i & slots->mask].load(std::memory_order_acquire);
      if (entry == nullptr) return nullptr;
      if (entry->hash == hash && SameWords(entry->words, words.words, num_compared_) &&
          (words.str_mask() == 0 || reader.StrsAre(args, words.str_mask(), entry->strs))) {
        return entry;
      }
    }
  }

  /*! \brief The entry with exactly these words and str values, or nullptr (writers, Get). */
  const Entry* FindOwned(const std::vector<uint64_t>& words,
                         const std::vector<std::string>& strs) const;

  /*! \brief Publishes `entry` (its key not in the set); the caller holds the writers' mutex. */
  const Entry* Insert(std::unique_ptr<Entry> entry);

  /*! \brief Every entry, in the order they were added; the caller holds the writers' mutex. */
  const std::vector<std::unique_ptr<Entry>>& entries() const { return entries_; }
  int64_t size() const { return size_.load(std::memory_order_acquire); }
  int32_t num_words() const { return num_words_; }

 private:
  static constexpr uint64_t kFirstCapacity = 8;
  static constexpr uint64_t kSlotsPerEntry = 4;  // at least: the most a slot array is filled
  // One slot array, its mask and its slots in one block (a reader follows one pointer).
  struct Slots {
    uint64_t mask;
    int shift;                                  // 64 - log2(capacity)
    mutable std::atomic<const Entry*> slot[1];  // capacity of them: the block is that long

    // The slot a probe for `hash` starts at: the hash's top bits (FinishHash mixed them).
    uint64_t First(uint64_t hash) const { return hash >> shift; }

    static std::unique_ptr<Slots, void (*)(Slots*)> Make(uint64_t capacity);
  };
  void Publish(uint64_t capacity);
  static void Place(const Slots& slots, const Entry* entry);

  int32_t num_words_;
  int32_t num_compared_;  // KeyWords::Compared(num_words_)
  std::atomic<const Slots*> current_{nullptr};
  // every slot array, freed with the set
  std::vector<std::unique_ptr<Slots, void (*)(Slots*)>> generations_;
  std::vector<std::unique_ptr<Entry>> entries_;
  std::atomic<int64_t> size_{0};
};

}  // namespace kwcall

#endif  // KWCALL_SRC_DISPATCH_ENTRY_SET_H_
