package shareddata

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMissingFailsUnderCI runs TestMissingHelper in a child process with
// and without CI: skipped without, failed with.
func TestMissingFailsUnderCI(t *testing.T) {
	if os.Getenv("SHAREDDATA_CHILD") != "" {
		t.Skip("the child's own run")
	}
	for _, c := range []struct {
		ci      string
		wantErr bool
		want    string
	}{{"", false, "--- SKIP: TestMissingHelper"}, {"1", true, "--- FAIL: TestMissingHelper"}} {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestMissingHelper$", "-test.v")
		cmd.Env = append(os.Environ(), "SHAREDDATA_CHILD=1", "CI="+c.ci)
		out, err := cmd.CombinedOutput()
		if (err != nil) != c.wantErr || !strings.Contains(string(out), c.want) {
			t.Errorf("CI=%q: exit error %v, want error %v and %q in:\n%s", c.ci, err, c.wantErr, c.want, out)
		}
	}
}

// TestMissingHelper asks for a file no shared data directory holds; it
// runs only as TestMissingFailsUnderCI's child.
func TestMissingHelper(t *testing.T) {
	if os.Getenv("SHAREDDATA_CHILD") == "" {
		t.Skip("run by TestMissingFailsUnderCI")
	}
	Path(t, "no such file.train")
	t.Error("Path returned for a missing file")
}

// TestDirFindsSharedData: from this package's directory the shared data
// directory is the repository root's ../shared/data.
func TestDirFindsSharedData(t *testing.T) {
	if os.Getenv("SHAREDDATA_CHILD") != "" {
		t.Skip("the child's own run")
	}
	dir := Dir(t)
	if !strings.HasSuffix(dir, "shared/data") {
		t.Errorf("Dir = %q", dir)
	}
}
