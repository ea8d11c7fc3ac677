#include "messages.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Each list keeps at most this many bytes; later messages are counted as
// dropped until Go drains the list.
#define GFX_MSG_LIMIT (1u << 20)

struct gfx_msgbuf {
	pthread_mutex_t mu;
	int verbose;
	char *data[GFX_MSG_KINDS];
	size_t len[GFX_MSG_KINDS], cap[GFX_MSG_KINDS];
	unsigned dropped[GFX_MSG_KINDS];
};

gfx_msgbuf *gfx_msgbuf_new(int verbose) {
	gfx_msgbuf *b = calloc(1, sizeof *b);
	if (b == NULL) {
		return NULL;
	}
	if (pthread_mutex_init(&b->mu, NULL) != 0) {
		free(b);
		return NULL;
	}
	b->verbose = verbose;
	return b;
}

void gfx_msgbuf_free(gfx_msgbuf *b) {
	if (b == NULL) {
		return;
	}
	for (int k = 0; k < GFX_MSG_KINDS; k++) {
		free(b->data[k]);
	}
	pthread_mutex_destroy(&b->mu);
	free(b);
}

void gfx_msgbuf_add(gfx_msgbuf *b, int kind, const char *msg) {
	if (kind < 0 || kind >= GFX_MSG_KINDS) {
		return;
	}
	size_t n = strlen(msg) + 1;
	pthread_mutex_lock(&b->mu);
	if (b->len[kind] + n > GFX_MSG_LIMIT) {
		b->dropped[kind]++;
		pthread_mutex_unlock(&b->mu);
		return;
	}
	if (b->len[kind] + n > b->cap[kind]) {
		size_t c = b->cap[kind] ? b->cap[kind] : 4096;
		while (c < b->len[kind] + n) {
			c *= 2;
		}
		char *d = realloc(b->data[kind], c);
		if (d == NULL) {
			b->dropped[kind]++;
			pthread_mutex_unlock(&b->mu);
			return;
		}
		b->data[kind] = d;
		b->cap[kind] = c;
	}
	memcpy(b->data[kind] + b->len[kind], msg, n);
	b->len[kind] += n;
	pthread_mutex_unlock(&b->mu);
}

size_t gfx_msgbuf_take(gfx_msgbuf *b, int kind, char **out, unsigned *dropped) {
	*out = NULL;
	*dropped = 0;
	if (kind < 0 || kind >= GFX_MSG_KINDS) {
		return 0;
	}
	pthread_mutex_lock(&b->mu);
	size_t n = b->len[kind];
	*out = b->data[kind];
	*dropped = b->dropped[kind];
	b->data[kind] = NULL;
	b->len[kind] = b->cap[kind] = 0;
	b->dropped[kind] = 0;
	pthread_mutex_unlock(&b->mu);
	return n;
}

static const char *gfx_severity_name(VkDebugUtilsMessageSeverityFlagBitsEXT s) {
	if (s & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
		return "error";
	}
	if (s & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
		return "warning";
	}
	if (s & VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT) {
		return "info";
	}
	return "verbose";
}

static VKAPI_ATTR VkBool32 VKAPI_CALL gfx_debug_callback(
	VkDebugUtilsMessageSeverityFlagBitsEXT severity,
	VkDebugUtilsMessageTypeFlagsEXT types,
	const VkDebugUtilsMessengerCallbackDataEXT *data,
	void *user) {
	(void)types;
	gfx_msgbuf *b = user;
	const char *msg = (data != NULL && data->pMessage != NULL) ? data->pMessage : "(no message)";
	if (b == NULL) {
		return VK_FALSE;
	}
	if (b->verbose) {
		fprintf(stderr, "gfxcuda: vulkan %s: %s\n", gfx_severity_name(severity), msg);
	}
	if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
		gfx_msgbuf_add(b, GFX_MSG_ERROR, msg);
	} else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
		gfx_msgbuf_add(b, GFX_MSG_WARNING, msg);
	}
	// VK_FALSE: the call that caused the message goes on as usual.
	return VK_FALSE;
}

void gfx_msgbuf_fill(VkDebugUtilsMessengerCreateInfoEXT *ci, gfx_msgbuf *b) {
	memset(ci, 0, sizeof *ci);
	ci->sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
	ci->messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT |
	                      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT;
	if (b->verbose) {
		ci->messageSeverity |= VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT;
	}
	ci->messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
	                  VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
	                  VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
	ci->pfnUserCallback = gfx_debug_callback;
	ci->pUserData = b;
}
