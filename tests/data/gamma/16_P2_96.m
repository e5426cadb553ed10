Network 16_P2_96 {
Layer L16 {
Type: CONV
Dimensions { K: 512, C: 512, Y: 512, X: 1, R: 1, S: 1 }
Dataflow {
TemporalMap(1,1) S;
TemporalMap(189,189) K;
TemporalMap(1,1) X';
TemporalMap(144,144) C;
SpatialMap(2,2) Y';
TemporalMap(1,1) R;
Cluster(3,P);
TemporalMap(1,1) R;
SpatialMap(1,1) K;
TemporalMap(1,1) Y';
TemporalMap(1,1) S;
TemporalMap(1,1) X';
TemporalMap(114,114) C;
}
}
}
