/// Namespace placeholder until the Sandbox target lands.
package enum SandboxModule {}
