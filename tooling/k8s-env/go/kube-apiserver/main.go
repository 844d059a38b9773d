// Command kube-apiserver is the upstream Kubernetes API server, built from the k8s.io/kubernetes
// module for tooling/k8s-env. Its go.mod is generated at build time (see lib/provision.js): it
// requires k8s.io/kubernetes at the chosen release and pins every staging module with replace.
package main

import (
	"os"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // for CronJob time zone support, as upstream

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"          // JSON log format, as upstream
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics, as upstream
	_ "k8s.io/component-base/metrics/prometheus/version"  // version metric, as upstream
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
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
	command := app.NewAPIServerCommand()
	os.Exit(cli.Run(command))
}
