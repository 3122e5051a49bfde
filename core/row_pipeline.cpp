#include "core/row_pipeline.h"

namespace roo {

RowPipeline::RowPipeline(RowSink& inner, size_t max_queued_rows)
    : inner_(inner), max_queued_(max_queued_rows), consumer_([this] { run(); }) {}

RowPipeline::~RowPipeline() {
  if (!local_.empty()) hand_over(false);  // rows after the last end_source (none in practice) are still written
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  items_.notify_one();
  consumer_.join();
}

void RowPipeline::take(Row&& row) {
  local_.emplace_back(std::move(row));
  if (local_.size() >= kBatch) hand_over(false);
}

void RowPipeline::hand_over(bool end_of_source) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (queue_.size() >= max_queued_) {  // bounded: memory stays small
    producer_sleeping_ = true;
    progress_.wait(lock, [this] { return queue_.size() < max_queued_; });
    producer_sleeping_ = false;
  }
  for (Item& item : local_) queue_.push_back(std::move(item));
  handed_ += local_.size();
  local_.clear();
  const uint64_t mine = handed_;
  if (consumer_sleeping_) items_.notify_one();
  if (!end_of_source) return;
  producer_sleeping_ = true;
  progress_.wait(lock, [&] { return done_ >= mine; });
  producer_sleeping_ = false;
}

void RowPipeline::end_source(const std::string& sha256_hex) {
  local_.emplace_back(EndSource{sha256_hex});
  hand_over(true);  // and wait until it is written
}

void RowPipeline::run() {
  std::deque<Item> batch;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (queue_.empty()) {
        if (stopping_) return;
        consumer_sleeping_ = true;
        items_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        consumer_sleeping_ = false;
        if (queue_.empty()) return;  // stopping, and everything written
      }
      batch.swap(queue_);  // take everything queued at once
      if (producer_sleeping_) progress_.notify_one();  // there is room again
    }
    const uint64_t n = batch.size();
    for (Item& item : batch) {
      if (Row* row = std::get_if<Row>(&item))
        inner_.emit(*row);
      else
        inner_.end_source(std::get<EndSource>(item).sha256_hex);
    }
    batch.clear();
    std::lock_guard<std::mutex> lock(mutex_);
    done_ += n;
    if (producer_sleeping_) progress_.notify_one();
  }
}

}  // namespace roo
