#include "framework/executor.h"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace sluice {

int NumCpuCores() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

ThreadPoolExecutor::ThreadPoolExecutor(int num_threads, std::string thread_name_prefix,
                                       int nice_priority_level)
    : prefix_(std::move(thread_name_prefix)), nice_(nice_priority_level) {
  if (num_threads <= 0) num_threads = NumCpuCores();
  for (int i = 0; i < num_threads; ++i) threads_.emplace_back([this, i] { WorkLoop(i); });
}

ThreadPoolExecutor::~ThreadPoolExecutor() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void ThreadPoolExecutor::Schedule(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> l(mu_);
    tasks_.push_back(std::move(task));
  }
  cv_.notify_one();
}

void ThreadPoolExecutor::WorkLoop(int index) {
  std::string name = (prefix_ + "/" + std::to_string(index)).substr(0, 15);
  pthread_setname_np(pthread_self(), name.c_str());
  if (nice_ != 0) {
    // Best effort: lowering priority needs no privilege, raising it may fail.
    (void)setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), nice_);
  }
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> l(mu_);
      cv_.wait(l, [this] { return stop_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stop_ and drained
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

void ApplicationThreadExecutor::Schedule(std::function<void()> task) {
  std::lock_guard<std::mutex> l(mu_);
  tasks_.push_back(std::move(task));
}

bool ApplicationThreadExecutor::RunOne() {
  std::function<void()> task;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (tasks_.empty()) return false;
    task = std::move(tasks_.front());
    tasks_.pop_front();
  }
  task();
  return true;
}

}  // namespace sluice
