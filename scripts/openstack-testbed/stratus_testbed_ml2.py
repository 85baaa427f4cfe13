"""ML2 mechanism driver of the Stratus OpenStack testbed.

The testbed runs Neutron without agents (no Open vSwitch, no Linux bridge):
nothing would bind a port, and Nova's boot waits for a bound port. This
driver binds every port on its first segment with an OVS vif and marks it
ACTIVE, so servers boot with addresses that exist only in Neutron's
database. It is registered as `stratus_testbed` under the
`neutron.ml2.mechanism_drivers` entry point by scripts/openstack-testbed.
"""

from neutron_lib.api.definitions import portbindings
from neutron_lib import constants
from neutron_lib.plugins.ml2 import api


class BindEveryPortDriver(api.MechanismDriver):
    def initialize(self):
        pass

    @property
    def connectivity(self):
        return portbindings.CONNECTIVITY_L2

    def bind_port(self, context):
        for segment in context.segments_to_bind:
            context.set_binding(
                segment[api.ID],
                portbindings.VIF_TYPE_OVS,
                {portbindings.CAP_PORT_FILTER: True},
                status=constants.PORT_STATUS_ACTIVE,
            )
            return
