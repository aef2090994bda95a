// Command precompress writes NAME.br beside each text file of the
// directories or files it is given, at brotli's best quality, for
// internal/web to serve as it is. The server compresses its static files
// once at start-up at quality 6 (static.go): quality 11 costs a second of
// CPU and 40 MB of scratch memory on the editor bundle, too dear at every
// start, and saves another 9% (121 to 110 KB on editor.js; 46 to 42 KB on
// the other files), most of a first visit's bytes. web/editor/build.sh runs
// it, as does go generate ./web; after editing a file in web/static:
//
//	go run ./internal/web/precompress web/static
//
// A NAME.br whose NAME is gone is removed. The server uses a NAME.br only
// when it decompresses to NAME, so a stale one costs nothing but bytes on
// the wire; TestPrecompressedAssetsCurrent fails on one.
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/andybalholm/brotli"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: precompress DIR|FILE...")
		os.Exit(2)
	}
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "precompress:", err)
		os.Exit(1)
	}
}

// textExts are the files worth compressing: internal/web's
// compressibleTypes, by name.
var textExts = map[string]bool{".js": true, ".css": true, ".svg": true, ".json": true, ".txt": true, ".html": true}

func run(args []string) error {
	for _, arg := range args {
		info, err := os.Stat(arg)
		if err != nil {
			return err
		}
		if !info.IsDir() {
			if err := precompress(arg); err != nil {
				return err
			}
			continue
		}
		entries, err := os.ReadDir(arg)
		if err != nil {
			return err
		}
		for _, e := range entries {
			name := filepath.Join(arg, e.Name())
			switch {
			case e.IsDir():
			case strings.HasSuffix(name, ".br"):
				if _, err := os.Stat(strings.TrimSuffix(name, ".br")); os.IsNotExist(err) {
					if err := os.Remove(name); err != nil {
						return err
					}
				}
			case textExts[filepath.Ext(name)]:
				if err := precompress(name); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func precompress(name string) error {
	body, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	w := brotli.NewWriterOptions(&buf, brotli.WriterOptions{Quality: brotli.BestCompression, LGWin: windowFor(len(body))})
	if _, err := w.Write(body); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	if buf.Len() >= len(body) {
		// Too small to gain: the server sends the file as it is.
		if err := os.Remove(name + ".br"); err != nil && !os.IsNotExist(err) {
			return err
		}
		return nil
	}
	if old, err := os.ReadFile(name + ".br"); err == nil && bytes.Equal(old, buf.Bytes()) {
		return nil // unchanged: keep the file's time
	}
	return os.WriteFile(name+".br", buf.Bytes(), 0o644)
}

// windowFor is the smallest window that holds the whole file, as
// internal/web's brotliWindowFor: the same output as a bigger one.
func windowFor(size int) int {
	lgwin := 10
	for lgwin < 24 && 1<<lgwin < size {
		lgwin++
	}
	return lgwin
}
