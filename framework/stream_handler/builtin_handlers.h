// The built-in input stream handlers, registered by MediaPipe's names.
#ifndef SLUICE_FRAMEWORK_STREAM_HANDLER_BUILTIN_HANDLERS_H_
#define SLUICE_FRAMEWORK_STREAM_HANDLER_BUILTIN_HANDLERS_H_

#include <functional>
#include <memory>
#include <string>

#include "framework/input_stream_handler.h"

namespace sluice {

using HandlerRegistrar = std::function<void(const std::string&, InputStreamHandlerFactory)>;
void RegisterBuiltinInputStreamHandlers(const HandlerRegistrar& add);

// Factories (one per file in framework/stream_handler/).
std::unique_ptr<InputStreamHandler> NewDefaultInputStreamHandler();
std::unique_ptr<InputStreamHandler> NewEarlyCloseInputStreamHandler();
std::unique_ptr<InputStreamHandler> NewFixedSizeInputStreamHandler();
std::unique_ptr<InputStreamHandler> NewSyncSetInputStreamHandler();
std::unique_ptr<InputStreamHandler> NewImmediateInputStreamHandler();
std::unique_ptr<InputStreamHandler> NewMuxInputStreamHandler();
std::unique_ptr<InputStreamHandler> NewBarrierInputStreamHandler();

}  // namespace sluice

#endif  // SLUICE_FRAMEWORK_STREAM_HANDLER_BUILTIN_HANDLERS_H_
