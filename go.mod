module github.com/gfxcuda/gfxcuda

go 1.26.0

require golang.org/x/image v0.47.0

require golang.org/x/sys v0.49.0
