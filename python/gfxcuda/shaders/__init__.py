"""Shader compilers: shaders.hlsl.compile, shaders.glsl.compile and
shaders.wgsl.compile return SPIR-V bytes for Compute."""
