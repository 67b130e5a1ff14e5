// The little of libc the board check needs to read its input files, and the target gcc's struct layouts
// (c_layouts.h). Embedded Swift has no Glibc module;
// Tools/build-board points clang at the target's own headers (never the host's) and defines
// _FILE_OFFSET_BITS=64, so off_t is 64 bits and pread/lseek are their 64-bit forms on 32-bit ARM too.
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "c_layouts.h"

// The runtime's entry points for a String's bridge value (its second word on 64-bit targets), called from C
// (Tools/board/runtime_calls.c): RuntimeCheck holds them to the runtime's contract.
void *board_bridge_object_retain(void *bridge);
void board_bridge_object_release(void *bridge);
