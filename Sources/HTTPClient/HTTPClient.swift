/// Namespace placeholder until the HTTPClient target lands.
package enum HTTPClientModule {}
