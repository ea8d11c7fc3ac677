"""Shader compilers: shaders.hlsl.compile and shaders.glsl.compile return
SPIR-V bytes for Compute."""
