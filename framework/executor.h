// Executors run scheduler tasks: a thread pool, or the application thread (ApplicationThreadExecutor).
#ifndef SLUICE_FRAMEWORK_EXECUTOR_H_
#define SLUICE_FRAMEWORK_EXECUTOR_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace sluice {

class Executor {
 public:
  virtual ~Executor() = default;
  // Runs `task` at some point, on some thread of this executor.
  virtual void Schedule(std::function<void()> task) = 0;
};

class ThreadPoolExecutor : public Executor {
 public:
  // num_threads <= 0 means the number of cores.
  explicit ThreadPoolExecutor(int num_threads, std::string thread_name_prefix = "sluice",
                              int nice_priority_level = 0);
  ~ThreadPoolExecutor() override;
  void Schedule(std::function<void()> task) override;
  int num_threads() const { return static_cast<int>(threads_.size()); }

 private:
  void WorkLoop(int index);
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool stop_ = false;
  std::string prefix_;
  int nice_ = 0;
  std::vector<std::thread> threads_;
};

// Tasks wait until the application thread runs them (CalculatorGraph does so
// inside WaitUntilIdle, WaitUntilDone and blocking AddPacketToInputStream).
class ApplicationThreadExecutor : public Executor {
 public:
  void Schedule(std::function<void()> task) override;
  // Runs one queued task on the calling thread; false when none was queued.
  bool RunOne();

 private:
  std::mutex mu_;
  std::deque<std::function<void()>> tasks_;
};

int NumCpuCores();

}  // namespace sluice

#endif  // SLUICE_FRAMEWORK_EXECUTOR_H_
