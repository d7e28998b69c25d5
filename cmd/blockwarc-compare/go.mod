module github.com/blockwarc/blockwarc/cmd/blockwarc-compare

go 1.26.8

require (
	codeberg.org/readeck/go-readability/v2 v2.1.3
	github.com/blockwarc/blockwarc v0.0.0-00010101000000-000000000000
)

require (
	github.com/andybalholm/cascadia v1.3.3 // indirect
	github.com/go-shiori/dom v0.0.0-20230515143342-73569d674e1c // indirect
	github.com/gogs/chardet v0.0.0-20211120154057-b7413eaefb8f // indirect
	github.com/itlightning/dateparse v0.2.1 // indirect
	github.com/klauspost/cpuid/v2 v2.4.0 // indirect
	github.com/kljensen/snowball v0.10.0 // indirect
	github.com/zeebo/xxh3 v1.1.0 // indirect
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.43.0 // indirect
)

replace github.com/blockwarc/blockwarc => ../..
