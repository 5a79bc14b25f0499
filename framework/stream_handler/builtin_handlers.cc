#include "framework/stream_handler/builtin_handlers.h"

namespace sluice {

void RegisterBuiltinInputStreamHandlers(const HandlerRegistrar& add) {
  add("DefaultInputStreamHandler", NewDefaultInputStreamHandler);
  add("EarlyCloseInputStreamHandler", NewEarlyCloseInputStreamHandler);
  add("FixedSizeInputStreamHandler", NewFixedSizeInputStreamHandler);
  add("SyncSetInputStreamHandler", NewSyncSetInputStreamHandler);
  add("ImmediateInputStreamHandler", NewImmediateInputStreamHandler);
  add("MuxInputStreamHandler", NewMuxInputStreamHandler);
  add("BarrierInputStreamHandler", NewBarrierInputStreamHandler);
}

}  // namespace sluice
