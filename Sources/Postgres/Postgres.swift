/// Namespace placeholder until the Postgres target lands.
package enum PostgresModule {}
