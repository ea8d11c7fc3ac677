// Capture of VK_EXT_debug_utils messages into a mutex-protected C buffer.
//
// The messenger callback may run on any thread, including the driver's and
// the layers' own, and while Go code is blocked in a Vulkan call. It is
// therefore plain C that never calls into Go: messages are appended to a
// buffer that Go drains with gfx_msgbuf_take.
#ifndef GFXCUDA_VK_MESSAGES_H
#define GFXCUDA_VK_MESSAGES_H

#define VK_NO_PROTOTYPES 1
#include <stddef.h>
#include <vulkan/vulkan.h>

// Message kinds kept in separate lists.
enum { GFX_MSG_ERROR = 0, GFX_MSG_WARNING = 1, GFX_MSG_KINDS = 2 };

typedef struct gfx_msgbuf gfx_msgbuf;

// gfx_msgbuf_new returns a buffer, or NULL when out of memory. With verbose
// set, every message is also printed to stderr as it arrives.
gfx_msgbuf *gfx_msgbuf_new(int verbose);
void gfx_msgbuf_free(gfx_msgbuf *b);

// gfx_msgbuf_take hands the messages of one kind to the caller and empties
// that list. *out receives a malloc'd block of NUL-terminated strings (free
// it with free) or NULL; the result is its length in bytes. *dropped
// receives how many messages did not fit since the last take.
size_t gfx_msgbuf_take(gfx_msgbuf *b, int kind, char **out, unsigned *dropped);

// gfx_msgbuf_fill fills a messenger create info whose callback appends to b.
void gfx_msgbuf_fill(VkDebugUtilsMessengerCreateInfoEXT *ci, gfx_msgbuf *b);

// gfx_msgbuf_add appends a message as the callback would; for tests.
void gfx_msgbuf_add(gfx_msgbuf *b, int kind, const char *msg);

#endif
