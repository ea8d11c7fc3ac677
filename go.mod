module github.com/gfxcuda/gfxcuda

go 1.26
