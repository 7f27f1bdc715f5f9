#include "shards/index_holder.h"

#include <algorithm>

namespace dps {

IndexHolder::IndexHolder(std::shared_ptr<const IndexReader> first)
    : current_(std::make_shared<const ServedGeneration>(std::move(first))) {
  all_.push_back(current_);
}

std::shared_ptr<const ServedGeneration> IndexHolder::Current() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_;
}

std::shared_ptr<const ServedGeneration> IndexHolder::At(uint64_t generation) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (current_->generation() == generation) return current_;
  if (previous_ && previous_->generation() == generation) return previous_;
  return nullptr;
}

uint64_t IndexHolder::newest() const { return Current()->generation(); }

bool IndexHolder::HasRoom() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !previous_ && retired_.expired();
}

void IndexHolder::Retire() {
  std::lock_guard<std::mutex> lock(mu_);
  if (previous_) retired_ = std::exchange(previous_, nullptr);
}

void IndexHolder::Install(std::shared_ptr<const IndexReader> next) {
  auto generation = std::make_shared<const ServedGeneration>(std::move(next));
  std::vector<GenerationObserver> observers;
  {
    std::lock_guard<std::mutex> lock(mu_);
    previous_ = std::exchange(current_, generation);
    std::erase_if(all_, [](const auto& w) { return w.expired(); });
    all_.push_back(generation);
    observers = observers_;
  }
  for (const auto& o : observers) o(generation->generation());
}

size_t IndexHolder::open_generations() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<size_t>(std::count_if(all_.begin(), all_.end(), [](const auto& w) { return !w.expired(); }));
}

void IndexHolder::OnGenerationChanged(GenerationObserver observer) {
  std::lock_guard<std::mutex> lock(mu_);
  observers_.push_back(std::move(observer));
}

}  // namespace dps
