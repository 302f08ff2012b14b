package buildinfo

import (
	"os"
	"regexp"
	"testing"
)

func TestShortRevision(t *testing.T) {
	for _, c := range []struct {
		in   Info
		want string
	}{
		{Info{}, ""},
		{Info{Revision: "0123456789abcdef0123"}, "0123456789ab"},
		{Info{Revision: "0123456789abcdef0123", Modified: true}, "0123456789ab+modified"},
		{Info{Revision: "0123456789abcdef0123+modified"}, "0123456789ab+modified"},
	} {
		if got := c.in.ShortRevision(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.in, got, c.want)
		}
	}
}

// TestVersionIsTheHeaders: Version is svmgo.h's SVMGO_VERSION_* (the
// module's tag is "v" + Version).
func TestVersionIsTheHeaders(t *testing.T) {
	h, err := os.ReadFile("../../include/svmgo.h")
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, part := range []string{"MAJOR", "MINOR", "PATCH"} {
		m := regexp.MustCompile(`(?m)^#define SVMGO_VERSION_` + part + ` (\d+)$`).FindSubmatch(h)
		if m == nil {
			t.Fatalf("svmgo.h: no SVMGO_VERSION_%s", part)
		}
		if got != "" {
			got += "."
		}
		got += string(m[1])
	}
	if got != Version || !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(Version) {
		t.Errorf("Version %q, svmgo.h %q", Version, got)
	}
}
