"""Seeds the OpenStack testbed; every step looks before it creates.

    seed.py identity STATE    service users, catalog endpoints, the Heat
                              domain, the `stratus` project and user
    seed.py resources STATE   flavors, an image, the tenant network with
                              its subnet and router, the external network,
                              and STATE/clouds.yaml (mode 0600)

Passwords come from the environment (testbed.sh reads them from
STATE/secrets.env); none is printed.
"""

import os
import sys

import openstack

HOST = "127.0.0.1"
KEYSTONE = f"http://{HOST}:5000/v3"
REGION = "RegionOne"

# type: (name, url)
ENDPOINTS = {
    "placement": ("placement", f"http://{HOST}:8778"),
    "image": ("glance", f"http://{HOST}:9292"),
    "compute": ("nova", f"http://{HOST}:8774/v2.1"),
    "network": ("neutron", f"http://{HOST}:9696"),
    "volumev3": ("cinderv3", f"http://{HOST}:8776/v3/%(project_id)s"),
    "block-storage": ("cinder", f"http://{HOST}:8776/v3/%(project_id)s"),
    "load-balancer": ("octavia", f"http://{HOST}:9876"),
    "orchestration": ("heat", f"http://{HOST}:8004/v1/%(tenant_id)s"),
}
SERVICE_USERS = ["placement", "glance", "nova", "neutron", "cinder", "octavia", "heat"]
USER_ROLES = ["member", "load-balancer_member", "heat_stack_owner"]
# name: (vcpus, ram MiB, disk GiB)
FLAVORS = {
    "m1.tiny": (1, 512, 1),
    "m1.small": (1, 2048, 20),
    "m1.medium": (2, 4096, 40),
    "m1.large": (4, 8192, 80),
    # More memory than the fake hypervisor has: a server of it goes to ERROR
    # with the fault "No valid host was found" (the failed-boot tests).
    "testbed.unschedulable": (1, 4_000_000, 1),
}
IMAGE = "debian-12"
TENANT_NET, TENANT_SUBNET, TENANT_CIDR = "stratus-net", "stratus-subnet", "10.0.0.0/24"
# Neutron hands out .2-.199 to ports; .200-.254 are kept for the load
# balancers' VIPs the tests name (GATEWAY_HOST, EDGE_HTTP_HOST), which the
# no-op network driver of Octavia makes no port for.
TENANT_POOL = [{"start": "10.0.0.2", "end": "10.0.0.199"}]
# A documentation range: nothing on it is ever reached.
PUBLIC_NET, PUBLIC_SUBNET, PUBLIC_CIDR = "public", "public-subnet", "203.0.113.0/24"
ROUTER = "stratus-router"


def admin():
    return openstack.connect(
        auth_url=KEYSTONE,
        username="admin",
        password=os.environ["ADMIN_PASSWORD"],
        project_name="admin",
        user_domain_name="Default",
        project_domain_name="Default",
        region_name=REGION,
        identity_api_version="3",
    )


def ensure(find, create, name, **attrs):
    found = find(name)
    return found if found else create(name=name, **attrs)


def grant_project(idn, project, user, role):
    if not idn.validate_user_has_project_role(project, user, role):
        idn.assign_project_role_to_user(project, user, role)


def identity():
    conn = admin()
    idn = conn.identity
    default = idn.find_domain("default") or idn.find_domain("Default")
    service = ensure(lambda n: idn.find_project(n, domain_id=default.id), idn.create_project, "service", domain_id=default.id)
    admin_role = idn.find_role("admin")
    # `service`: the role keystonemiddleware wants on a service token (Nova's calls to Cinder carry one).
    for name in ["member", "reader", "service", "load-balancer_member", "heat_stack_owner", "heat_stack_user"]:
        ensure(idn.find_role, idn.create_role, name)
    service_role = idn.find_role("service")
    for name in SERVICE_USERS:
        # Passwords are set once: the secrets file lives as long as the databases (down --purge drops both).
        user = idn.find_user(name, domain_id=default.id)
        if user is None:
            user = idn.create_user(name=name, password=os.environ["SERVICE_PASSWORD"], domain_id=default.id)
        grant_project(idn, service, user, admin_role)
        grant_project(idn, service, user, service_role)
    existing = {(e.service_id, e.interface) for e in idn.endpoints()}
    for type_, (name, url) in ENDPOINTS.items():
        svc = next((s for s in idn.services() if s.type == type_), None)
        if svc is None:
            svc = idn.create_service(name=name, type=type_, is_enabled=True)
        for interface in ("public", "internal", "admin"):
            if (svc.id, interface) not in existing:
                idn.create_endpoint(service_id=svc.id, interface=interface, url=url, region_id=REGION)
    # Heat's stack user domain and its admin.
    heat = ensure(idn.find_domain, idn.create_domain, "heat", description="Stack projects and users")
    heat_admin = idn.find_user("heat_domain_admin", domain_id=heat.id)
    if heat_admin is None:
        heat_admin = idn.create_user(name="heat_domain_admin", password=os.environ["HEAT_DOMAIN_PASSWORD"], domain_id=heat.id)
    if not idn.validate_user_has_domain_role(heat, heat_admin, admin_role):
        idn.assign_domain_role_to_user(heat, heat_admin, admin_role)
    # The tenant the control plane acts as.
    project = ensure(lambda n: idn.find_project(n, domain_id=default.id), idn.create_project, "stratus", domain_id=default.id)
    user = idn.find_user("stratus", domain_id=default.id)
    if user is None:
        user = idn.create_user(name="stratus", password=os.environ["USER_PASSWORD"], domain_id=default.id, default_project_id=project.id)
    for role in USER_ROLES:
        grant_project(idn, project, user, idn.find_role(role))
    grant_project(idn, project, idn.find_user("admin", domain_id=default.id), admin_role)


def resources(state):
    conn = admin()
    project = conn.identity.find_project("stratus", domain_id="default")
    # No quota stands between the tests and the testbed: the quota tests set their own on a project of their own.
    conn.set_compute_quotas(project.id, instances=-1, cores=-1, ram=-1)
    conn.set_network_quotas(project.id, port=-1, network=-1, subnet=-1, floatingip=-1, security_group=-1, security_group_rule=-1)
    conn.set_volume_quotas(project.id, volumes=-1, gigabytes=-1)
    for name, (vcpus, ram, disk) in FLAVORS.items():
        if conn.compute.find_flavor(name) is None:
            conn.compute.create_flavor(name=name, vcpus=vcpus, ram=ram, disk=disk, is_public=True)
    if conn.image.find_image(IMAGE) is None:
        # The fake virt driver never reads it: a few bytes make an `active` image.
        body = {"name": IMAGE, "disk_format": "raw", "container_format": "bare", "visibility": "public"}
        image = conn.image.post("/images", json=body).json()
        conn.image.put(
            f"/images/{image['id']}/file",
            data=b"stratus-testbed-image\n",
            headers={"Content-Type": "application/octet-stream"},
        )
    net = conn.network
    public = net.find_network(PUBLIC_NET)
    if public is None:
        public = net.create_network(
            name=PUBLIC_NET,
            is_router_external=True,
            is_shared=False,
            provider_network_type="flat",
            provider_physical_network="physnet1",
        )
    public_subnet = net.find_subnet(PUBLIC_SUBNET)
    if public_subnet is None:
        net.create_subnet(
            name=PUBLIC_SUBNET,
            network_id=public.id,
            ip_version=4,
            cidr=PUBLIC_CIDR,
            gateway_ip="203.0.113.1",
            is_dhcp_enabled=False,
        )
    tenant = net.find_network(TENANT_NET, project_id=project.id)
    if tenant is None:
        tenant = net.create_network(name=TENANT_NET, project_id=project.id)
    subnet = net.find_subnet(TENANT_SUBNET, project_id=project.id)
    if subnet is None:
        subnet = net.create_subnet(
            name=TENANT_SUBNET,
            network_id=tenant.id,
            project_id=project.id,
            ip_version=4,
            cidr=TENANT_CIDR,
            allocation_pools=TENANT_POOL,
            is_dhcp_enabled=False,
        )
    elif subnet.allocation_pools != TENANT_POOL:
        net.update_subnet(subnet, allocation_pools=TENANT_POOL)
    # Floating IPs need a router between the tenant subnet and the external network.
    router = net.find_router(ROUTER, project_id=project.id)
    if router is None:
        router = net.create_router(name=ROUTER, project_id=project.id, external_gateway_info={"network_id": public.id})
        net.add_interface_to_router(router, subnet_id=subnet.id)
    write_clouds(state)


def write_clouds(state):
    def cloud(user, password, project):
        return (
            f"    auth:\n"
            f"      auth_url: {KEYSTONE}\n"
            f"      username: {user}\n"
            f"      password: {password}\n"
            f"      project_name: {project}\n"
            f"      user_domain_name: Default\n"
            f"      project_domain_name: Default\n"
            f"    region_name: {REGION}\n"
            f"    interface: public\n"
            f"    identity_api_version: 3\n"
        )

    text = (
        "# Written by scripts/openstack-testbed/testbed.sh: the testbed's credentials.\n"
        "clouds:\n"
        "  stratus-testbed:\n" + cloud("stratus", os.environ["USER_PASSWORD"], "stratus") +
        "  stratus-testbed-admin:\n" + cloud("admin", os.environ["ADMIN_PASSWORD"], "admin")
    )
    path = os.path.join(state, "clouds.yaml")
    fd = os.open(path + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(path + ".tmp", 0o600)
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    step, state = sys.argv[1], sys.argv[2]
    if step == "identity":
        identity()
    elif step == "resources":
        resources(state)
    else:
        sys.exit(f"unknown step {step}")
