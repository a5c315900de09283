#pragma once

// Bump ENGINE_VERSION whenever a change can alter any number the engine returns for a given request
// and seed: the daemon and clients treat (engine_version, request, seed) as a reproducibility key.
#define DS_ENGINE_VERSION "1.0.0"
#define DS_RUNTIME_VERSION "1.0.0"
