PS1='nobp\$ '
