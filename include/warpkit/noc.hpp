#pragma once
/// \file
/// The network-on-chip area: the network concept, ideal network, crossbar, mesh with
/// virtual channels, routing policies and router bypass, allocators, cluster links and
/// packets, synthetic traffic and BookSim-style measurement.

#include <warpkit/noc/allocator.hpp>
#include <warpkit/noc/cluster_link.hpp>
#include <warpkit/noc/cluster_packet.hpp>
#include <warpkit/noc/concepts.hpp>
#include <warpkit/noc/crossbar.hpp>
#include <warpkit/noc/ideal_network.hpp>
#include <warpkit/noc/mesh.hpp>
#include <warpkit/noc/mesh_params.hpp>
#include <warpkit/noc/mesh_routing.hpp>
#include <warpkit/noc/network_stats.hpp>
#include <warpkit/noc/packet.hpp>
#include <warpkit/noc/sweep.hpp>
#include <warpkit/noc/traffic.hpp>
