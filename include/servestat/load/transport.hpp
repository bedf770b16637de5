// The driver's byte stream to a server: plain TCP, or TLS over it, behind one type for the HTTP code.
#pragma once

#include <chrono>      // std::chrono::steady_clock
#include <memory>      // std::shared_ptr, std::make_shared
#include <optional>    // std::optional
#include <string>      // std::string
#include <utility>     // std::exchange (Boost 1.74's awaitable.hpp uses it without the include), std::forward

#include <openssl/ssl.h>    // SSL_set1_host, SSL_set_tlsext_host_name, SSL_get_verify_result
#include <openssl/x509v3.h> // X509_VERIFY_PARAM_set1_ip_asc

#include <boost/asio/awaitable.hpp>       // boost::asio::awaitable
#include <boost/asio/ip/address.hpp>      // boost::asio::ip::make_address
#include <boost/asio/ip/tcp.hpp>          // boost::asio::ip::tcp
#include <boost/asio/redirect_error.hpp>  // boost::asio::redirect_error
#include <boost/asio/ssl/context.hpp>     // boost::asio::ssl::context
#include <boost/asio/ssl/error.hpp>       // boost::asio::ssl::error
#include <boost/asio/use_awaitable.hpp>   // boost::asio::use_awaitable
#include <boost/beast/core/tcp_stream.hpp> // boost::beast::tcp_stream
#include <boost/beast/ssl/ssl_stream.hpp>  // boost::beast::ssl_stream
#include <fmt/format.h>                   // fmt::format

#include "servestat/core/errors.hpp" // usage_error

namespace servestat::load {

namespace net = boost::asio;
namespace beast = boost::beast;
using tcp = boost::asio::ip::tcp;
using steady = std::chrono::steady_clock;

// How the driver trusts an HTTPS server: the system's CA store by default (as curl does),
// --cacert FILE instead of it, or --insecure: no verification at all.
struct tls_options {
    std::string ca_file;
    bool insecure = false;
};

// The client context every HTTPS connection of a run shares. TLS 1.2 at least; throws usage_error
// when the CA file cannot be read.
inline std::shared_ptr<net::ssl::context> make_tls_context(const tls_options& o) {
    auto ctx = std::make_shared<net::ssl::context>(net::ssl::context::tls_client);
    SSL_CTX_set_min_proto_version(ctx->native_handle(), TLS1_2_VERSION);
    if (o.insecure) {
        ctx->set_verify_mode(net::ssl::verify_none);
        return ctx;
    }
    ctx->set_verify_mode(net::ssl::verify_peer);
    boost::system::error_code ec;
    if (o.ca_file.empty()) ctx->set_default_verify_paths(ec);
    else ctx->load_verify_file(o.ca_file, ec);
    if (ec)
        throw usage_error(o.ca_file.empty()
                              ? fmt::format("cannot load the system's CA certificates: {}", ec.message())
                              : fmt::format("--cacert {}: not a readable PEM certificate file ({})", o.ca_file,
                                            ec.message()));
    return ctx;
}

// How long opening a connection took: TCP connect, and the TLS handshake after it (HTTPS only).
struct connect_timing {
    double connect = 0;
    std::optional<double> tls;
};

namespace detail {

inline double seconds_between(steady::time_point a, steady::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

// Why a handshake failed, in words a user can act on: OpenSSL's verification result ("hostname
// mismatch", "self-signed certificate") is more use than the bare "certificate verify failed".
inline boost::system::system_error handshake_failure(const boost::system::error_code& ec, SSL* ssl,
                                                     const std::string& host) {
    const long verify = SSL_get_verify_result(ssl);
    const bool wrong_name = verify == X509_V_ERR_HOSTNAME_MISMATCH || verify == X509_V_ERR_IP_ADDRESS_MISMATCH;
    if (verify != X509_V_OK)
        return boost::system::system_error(
            ec, fmt::format("TLS handshake with {}: certificate not trusted ({}); {}", host,
                            X509_verify_cert_error_string(verify),
                            wrong_name ? "use a name the certificate was issued for, or --insecure"
                                       : "give --cacert FILE with its CA, or --insecure"));
    // OpenSSL's words when the other end answers in plain HTTP.
    if (ec.message().find("wrong version number") != std::string::npos)
        return boost::system::system_error(
            ec, fmt::format("TLS handshake with {}: the server does not speak TLS here (an http:// URL?)", host));
    return boost::system::system_error(ec, fmt::format("TLS handshake with {}", host));
}

} // namespace detail

// One connection's stream. It models Asio's AsyncReadStream and AsyncWriteStream, so Beast's
// HTTP reads and writes take it whichever transport is inside; both branches complete the same way.
class client_stream {
public:
    using executor_type = beast::tcp_stream::executor_type;

    // `tls` null: plain TCP.
    client_stream(const executor_type& executor, net::ssl::context* tls) {
        if (tls) tls_.emplace(executor, *tls);
        else plain_.emplace(executor);
    }

    executor_type get_executor() { return lowest().get_executor(); }
    beast::tcp_stream& lowest() { return tls_ ? tls_->next_layer() : *plain_; }

    // Connects (and shakes hands) before `deadline`; throws boost::system::system_error.
    net::awaitable<connect_timing> open(const tcp::resolver::results_type& addresses, const std::string& host,
                                        steady::time_point deadline) {
        connect_timing out;
        auto& tcp_layer = lowest();
        open_socket(tcp_layer, addresses);
        tcp_layer.expires_at(deadline);
        const auto start = steady::now();
        co_await tcp_layer.async_connect(addresses, net::use_awaitable);
        const auto connected = steady::now();
        out.connect = detail::seconds_between(start, connected);
        tcp_layer.socket().set_option(tcp::no_delay(true));
        if (!tls_) co_return out;
        SSL* ssl = tls_->native_handle();
        name_the_server(ssl, host);
        boost::system::error_code ec;
        co_await tls_->async_handshake(net::ssl::stream_base::client, net::redirect_error(net::use_awaitable, ec));
        if (ec) throw detail::handshake_failure(ec, ssl, host);
        out.tls = detail::seconds_between(connected, steady::now());
        co_return out;
    }

    template <class Buffers, class Token>
    auto async_read_some(const Buffers& buffers, Token&& token) {
        if (tls_) return tls_->async_read_some(buffers, std::forward<Token>(token));
        return plain_->async_read_some(buffers, std::forward<Token>(token));
    }

    template <class Buffers, class Token>
    auto async_write_some(const Buffers& buffers, Token&& token) {
        if (tls_) return tls_->async_write_some(buffers, std::forward<Token>(token));
        return plain_->async_write_some(buffers, std::forward<Token>(token));
    }

    // Drops the connection at once: no TLS close_notify, since the driver closes to abort.
    void close() {
        beast::error_code ignored;
        lowest().socket().shutdown(tcp::socket::shutdown_both, ignored);
        lowest().close();
    }

private:
    // Asio's connect over a list of addresses takes a socket it could not open for one closed under
    // it, and says "Operation canceled": the driver out of file descriptors would be told as the
    // server's failure. Opening the socket first throws the real reason (EMFILE); the connect then
    // closes it and opens its own in the descriptor this one frees.
    static void open_socket(beast::tcp_stream& tcp_layer, const tcp::resolver::results_type& addresses) {
        if (addresses.empty()) return;
        boost::system::error_code ec;
        tcp_layer.socket().open(addresses.begin()->endpoint().protocol(), ec);
        if (ec) throw boost::system::system_error(ec, "socket");
    }

    // SNI for names (not for address literals, RFC 6066), and what the certificate must name:
    // OpenSSL checks it during the handshake, so a mismatch fails there with its own reason.
    static void name_the_server(SSL* ssl, const std::string& host) {
        boost::system::error_code ec;
        std::string bare = host;
        if (bare.size() > 2 && bare.front() == '[' && bare.back() == ']') bare = bare.substr(1, bare.size() - 2);
        net::ip::make_address(bare, ec);
        if (!ec) {
            X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), bare.c_str());
        } else {
            SSL_set_tlsext_host_name(ssl, bare.c_str());
            SSL_set1_host(ssl, bare.c_str());
        }
        static constexpr unsigned char http11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
        SSL_set_alpn_protos(ssl, http11, sizeof http11);
    }

    std::optional<beast::tcp_stream> plain_;
    std::optional<beast::ssl_stream<beast::tcp_stream>> tls_;
};

} // namespace servestat::load
