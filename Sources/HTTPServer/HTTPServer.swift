/// Namespace placeholder until the HTTPServer target lands.
package enum HTTPServerModule {}
