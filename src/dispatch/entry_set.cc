// A table's entries (entry_set.h): the writers' side.
#include "dispatch/entry_set.h"

#include <algorithm>
#include <cstddef>
#include <new>

namespace kwcall {

std::unique_ptr<EntrySet::Slots, void (*)(EntrySet::Slots*)> EntrySet::Slots::Make(
    uint64_t capacity) {
  void* block =
      ::operator new(offsetof(Slots, slot) + capacity * sizeof(std::atomic<const Entry*>));
  auto* slots = static_cast<Slots*>(block);
  slots->mask = capacity - 1;
  slots->shift = 64 - __builtin_ctzll(capacity);
  for (uint64_t i = 0; i < capacity; ++i) new (&slots->slot[i]) std::atomic<const Entry*>(nullptr);
  return {slots, [](Slots* dead) { ::operator delete(dead); }};
}

const Entry* EntrySet::FindOwned(const std::vector<uint64_t>& words,
                                 const std::vector<std::string>& strs) const {
  const uint64_t hash = HashWords(words.data(), num_words_);
  const Slots* slots = current_.load(std::memory_order_acquire);
  for (uint64_t i = slots->First(hash);; ++i) {
    const Entry* entry = slots->slot[i & slots->mask].load(std::memory_order_acquire);
    if (entry == nullptr) return nullptr;
    if (entry->hash == hash && std::equal(words.begin(), words.end(), entry->words) &&
        entry->strs == strs) {
      return entry;
    }
  }
}

const Entry* EntrySet::Insert(std::unique_ptr<Entry> entry) {
  entry->hash = HashWords(entry->words, num_words_);
  const Entry* added = entry.get();
  entries_.push_back(std::move(entry));
  const Slots* slots = current_.load(std::memory_order_relaxed);
  if (kSlotsPerEntry * entries_.size() > slots->mask + 1) {
    Publish(2 * (slots->mask + 1));  // places every entry, the new one too
  } else {
    Place(*slots, added);
  }
  size_.store(static_cast<int64_t>(entries_.size()), std::memory_order_release);
  return added;
}

void EntrySet::Publish(uint64_t capacity) {
  auto slots = Slots::Make(capacity);
  for (const auto& entry : entries_) Place(*slots, entry.get());
  current_.store(slots.get(), std::memory_order_release);
  generations_.push_back(std::move(slots));
}

void EntrySet::Place(const Slots& slots, const Entry* entry) {
  for (uint64_t i = slots.First(entry->hash);; ++i) {
    std::atomic<const Entry*>& slot = slots.slot[i & slots.mask];
    if (slot.load(std::memory_order_relaxed) == nullptr) {
      slot.store(entry, std::memory_order_release);
      return;
    }
  }
}

}  // namespace kwcall
