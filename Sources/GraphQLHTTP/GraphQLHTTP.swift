/// Namespace placeholder until the GraphQLHTTP target lands.
package enum GraphQLHTTPModule {}
