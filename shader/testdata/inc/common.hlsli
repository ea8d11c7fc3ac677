#define WG 128
