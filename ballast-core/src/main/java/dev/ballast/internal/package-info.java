/**
 * Helpers that Ballast's modules share and users should not program against: {@code Ranges} (the
 * one message shape for a bad setting, {@code "name: value (expected: ...)"}, and values written
 * as a user writes them), {@code VarHandles} (field handles for the lock-free classes) and {@code
 * Padded} (cache-line padding for counters that completions write), {@code ProcessCpu}, {@code
 * RateMeter} and {@code UtilizationReadings} (what a server's load report carries, for every
 * transport). Public only so that Ballast's modules can share them: marked {@link
 * dev.ballast.annotation.Internal}, they may change in any release, and the API compatibility check
 * ignores them.
 */
@Internal
package dev.ballast.internal;

import dev.ballast.annotation.Internal;
