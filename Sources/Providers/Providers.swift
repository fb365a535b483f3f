/// Namespace placeholder until the Providers target lands.
package enum ProvidersModule {}
