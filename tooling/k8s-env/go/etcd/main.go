// Command etcd is the upstream etcd server, built from go.etcd.io/etcd/server/v3 for
// tooling/k8s-env. Its go.mod is generated at build time (see lib/provision.js).
package main

import (
	"os"
	"strconv"
	"strings"
	"time"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

// watchParent exits the process when the process that started it (K8S_ENV_PARENT_PID) is gone,
// so a test runner killed with SIGKILL leaves no server behind. It also removes the test
// environment's temp dir (K8S_ENV_TEMP_DIR) on the way out.
func watchParent() {
	pid, err := strconv.Atoi(os.Getenv("K8S_ENV_PARENT_PID"))
	if err != nil || pid <= 1 {
		return
	}
	go func() {
		for {
			if os.Getppid() != pid {
				if dir := os.Getenv("K8S_ENV_TEMP_DIR"); strings.Contains(dir, "k8s-env-") {
					_ = os.RemoveAll(dir)
				}
				os.Exit(3)
			}
			time.Sleep(500 * time.Millisecond)
		}
	}()
}

func main() {
	watchParent()
	etcdmain.Main(os.Args)
}
