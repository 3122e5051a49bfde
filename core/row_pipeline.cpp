#include "core/row_pipeline.h"

namespace roo {

RowPipeline::RowPipeline(RowSink& inner, size_t max_queued_rows)
    : inner_(inner), max_queued_(max_queued_rows), consumer_([this] { run(); }) {}

RowPipeline::~RowPipeline() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  consumer_.join();
}

void RowPipeline::take(Row&& row) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return queue_.size() < max_queued_; });  // bounded: memory stays small
  queue_.emplace_back(std::move(row));
  ++handed_;
  lock.unlock();
  changed_.notify_all();
}

void RowPipeline::end_source(const std::string& sha256_hex) {
  std::unique_lock<std::mutex> lock(mutex_);
  queue_.emplace_back(EndSource{sha256_hex});
  const uint64_t mine = ++handed_;
  changed_.notify_all();
  changed_.wait(lock, [&] { return done_ >= mine; });
}

void RowPipeline::run() {
  for (;;) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and everything written
    Item item = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    changed_.notify_all();  // room in the queue
    if (Row* row = std::get_if<Row>(&item))
      inner_.emit(*row);
    else
      inner_.end_source(std::get<EndSource>(item).sha256_hex);
    lock.lock();
    ++done_;
    lock.unlock();
    changed_.notify_all();
  }
}

}  // namespace roo
